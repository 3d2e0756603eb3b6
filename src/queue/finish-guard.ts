/**
 * Job finishes that a planned failover drops, made again at once instead of a minute later.
 *
 * Sentinel's failover (`SENTINEL FAILOVER`, a managed Redis's maintenance) promotes the replica first and turns the
 * old primary into its replica only later. Until a connection moves (at the sentinels' +switch-master, about a second
 * after the promotion) its writes still land on the old primary, which throws them away when it turns replica:
 * replication is asynchronous. A completion written there is lost while the job it completed stays active on the new
 * primary, under the lock of a run that has ended, until the lock expires and BullMQ's stalled-job check takes the job
 * back: up to a minute (30 s lock, checked every 30 s).
 *
 * So a worker remembers the runs it ended within a lock's life; when its connection is back after a drop it asks the
 * server it now reaches which of the runs that ended before the drop still hold their job's lock (a finish always
 * removes it), and finishes those again: a completion with the same result; anything else (a failure, a retry, a
 * delay) by putting the job back to wait, to run again (every job kind is safe to run again).
 */
import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '../log/logger.js';
import { messageOf } from '../errors/message-of.js';
import { findRedisFailure } from '../redis/errors.js';
import { isCluster, type RedisConnection, type RedisTarget } from '../redis/connection.js';

/** A job processor as BullMQ calls it. */
export type Processor<D, R> = (job: Job<D, R>, token?: string, signal?: AbortSignal) => Promise<R>;

export interface FinishGuard {
  /** The processor, each run remembered as it ends (BullMQ then writes its finish). */
  wrap<D, R>(processor: Processor<D, R>): Processor<D, R>;
  /**
   * A worker error: when it is a write Redis refused (full: OOM; read-only), it may have been a job's finish, so the
   * runs that ended are looked at again every 2 s until Redis takes their finishes.
   */
  noteError(err: unknown): void;
  /** Stops listening to the connection (the worker closes). */
  stop(): void;
}

export interface FinishGuardOptions {
  /** The worker's own connection (BullMQ writes its jobs' finishes there). */
  conn: Redis;
  /** The worker's lockDuration: a run that ended longer ago has no lock left to find (the stalled check's case). */
  lockDurationMs: number;
  logger: Logger;
}

interface EndedRun {
  job: Job;
  token: string;
  at: number;
  /** The processor returned (BullMQ completes the job); else it threw (BullMQ fails, retries or delays it). */
  returned: boolean;
  result?: unknown;
}

/** A run: BullMQ hands a token on from a finished job to the next it fetches with the finish, so a token is no key. */
const runKey = (run: EndedRun) => `${run.token} ${run.job.id} ${run.job.processedOn}`;

/** Runs looked up at once when a connection is back. */
const CHUNK = 500;
/** While Redis refuses writes, how often the finishes it refused are tried again, in ms. */
const REFUSED_RETRY_MS = 2_000;
/** A run younger than this may still have its own finish on the way: left to it, in ms. */
const SETTLE_MS = 1_000;

/** A refusal from Redis itself (OOM, READONLY...), not a connection that went away. */
const refusedByRedis = (err: unknown) => findRedisFailure(err)?.replied === true;

/** Watches `conn` for a drop and finishes again, on the server it comes back to, the jobs whose finish was lost. */
export function guardFinishes(o: FinishGuardOptions): FinishGuard {
  const ended = new EndedRuns(o.lockDurationMs);
  let droppedAt: number | undefined;
  const retry = retryEvery(REFUSED_RETRY_MS, () => finishAgain(o, ended, Date.now() - SETTLE_MS, 'while Redis refused writes'));

  const onClose = () => {
    droppedAt ??= Date.now();
  };
  const onReady = () => {
    if (droppedAt === undefined) return;
    const at = droppedAt;
    droppedAt = undefined;
    // After ioredis has sent again what the drop left unanswered: 'ready' comes before that, and one connection's
    // commands run in order, so the finishes it resends are seen here.
    setImmediate(() => {
      finishAgain(o, ended, at).catch((err: unknown) =>
        o.logger.warn(
          { err: messageOf(err) },
          "could not look for job finishes lost in a Redis failover; BullMQ's stalled-job check takes such jobs back within a minute",
        ),
      );
    });
  };
  o.conn.on('close', onClose);
  o.conn.on('ready', onReady);

  return {
    wrap: (processor) => remembering(processor, ended),
    noteError(err) {
      if (refusedByRedis(err)) retry.start();
    },
    stop() {
      o.conn.off('close', onClose);
      o.conn.off('ready', onReady);
      retry.stop();
      ended.clear();
    },
  };
}

/** The runs that ended within a lock's life, by runKey, oldest first. */
class EndedRuns extends Map<string, EndedRun> {
  constructor(private readonly lockDurationMs: number) {
    super();
  }

  /** Forgets the runs whose lock has expired by `now` (no finish of theirs is left to find). */
  forgetOld(now: number): void {
    for (const [key, run] of this) {
      if (now - run.at < this.lockDurationMs) break;
      this.delete(key);
    }
  }

  remember(run: EndedRun): void {
    this.forgetOld(run.at);
    this.set(runKey(run), run);
  }
}

/** The processor, each run remembered as it ends, whether it returned or threw. */
function remembering<D, R>(processor: Processor<D, R>, ended: EndedRuns): Processor<D, R> {
  const run = async (job: Job<D, R>, token?: string, signal?: AbortSignal) => {
    let returned = false;
    let result: R | undefined;
    try {
      result = await processor(job, token, signal);
      returned = true;
      return result;
    } finally {
      if (token && job.id) ended.remember({ job: job as Job, token, at: Date.now(), returned, result });
    }
  };
  // BullMQ hands an abort signal only to a processor that declares three parameters: as many as the one wrapped.
  return processor.length >= 3 ? run : (job, token) => run(job, token);
}

/**
 * Finishes again the runs that ended before `droppedAt` and still hold their job's lock. Answers whether Redis refused
 * some of them (they are kept, to be tried again).
 */
async function finishAgain(
  o: FinishGuardOptions,
  ended: EndedRuns,
  droppedAt: number,
  why = 'in a Redis failover (written to the old primary)',
): Promise<boolean> {
  ended.forgetOld(Date.now());
  const runs = [...ended.values()].filter((r) => r.at <= droppedAt);
  const done = { completedAgain: 0, putBack: 0, refusedAgain: false, queues: new Set<string>() };
  for (let i = 0; i < runs.length; i += CHUNK) {
    const lost = await stillLocked(o.conn, runs.slice(i, i + CHUNK));
    await Promise.all(
      lost.map(async (run) => {
        ended.delete(runKey(run));
        done.queues.add(run.job.queueName);
        const outcome = await finishRun(o.logger, run);
        if (outcome === 'refused') {
          // Redis still refuses writes: kept for the next try.
          ended.set(runKey(run), run);
          done.refusedAgain = true;
        } else if (outcome === 'completed') done.completedAgain++;
        else if (outcome === 'put back') done.putBack++;
      }),
    );
  }
  const { completedAgain, putBack, queues } = done;
  if (completedAgain + putBack > 0) o.logger.info({ queues: [...queues], completedAgain, putBack }, `job finishes lost ${why} made again`);
  return done.refusedAgain;
}

/**
 * The runs still active on the server: their job holds the lock (removed by every finish) with their token, taken by
 * this very fetch (a token serves a chain of fetches, and a fetch the failover dropped may have been made again since).
 */
async function stillLocked(conn: Redis, chunk: EndedRun[]): Promise<EndedRun[]> {
  const reads = conn.pipeline();
  for (const { job } of chunk) {
    const key = `${job.queueQualifiedName}:${job.id}`;
    reads.get(`${key}:lock`).hget(key, 'processedOn');
  }
  const replies = (await reads.exec()) ?? [];
  const value = (n: number) => replies[n]?.[1];
  return chunk.filter((run, k) => value(2 * k) === run.token && Number(value(2 * k + 1)) === run.job.processedOn);
}

/** Completes the run's job again with its result, or puts it back to wait (a run that threw). */
async function finishRun(logger: Logger, run: EndedRun): Promise<'completed' | 'put back' | 'refused' | 'settled'> {
  try {
    if (run.returned) {
      await run.job.moveToCompleted(run.result, run.token, false);
      return 'completed';
    }
    await run.job.moveToWait(run.token);
    return 'put back';
  } catch (err) {
    if (refusedByRedis(err)) return 'refused';
    // Settled meanwhile (its own finish came through after all, or the lock expired): nothing left to do.
    logger.debug({ jobId: run.job.id, err: messageOf(err) }, 'a finish thought lost was settled meanwhile');
    return 'settled';
  }
}

/** Runs `attempt` every `ms` once started, one at a time, until it answers false (nothing left refused). */
function retryEvery(ms: number, attempt: () => Promise<boolean>): { start(): void; stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  let busy = false;
  const stop = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
  };
  const tick = () => {
    if (busy) return;
    busy = true;
    attempt()
      .then((again) => {
        if (!again) stop();
      })
      .catch(() => undefined)
      .finally(() => {
        busy = false;
      });
  };
  return {
    start() {
      if (timer) return;
      timer = setInterval(tick, ms);
      timer.unref();
    },
    stop,
  };
}

/** Leaves the processor as it is. */
const UNGUARDED: FinishGuard = { wrap: (processor) => processor, noteError: () => undefined, stop: () => undefined };

/**
 * The guard a worker's connection needs: guardFinishes on one server and on Sentinel's primary (a failover, a restart,
 * a full Redis refusing the finish); none on a cluster, whose connections are left as they are.
 */
export function finishGuardFor(_target: RedisTarget | string, conn: RedisConnection, o: Omit<FinishGuardOptions, 'conn'>): FinishGuard {
  return isCluster(conn) ? UNGUARDED : guardFinishes({ ...o, conn });
}
