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
import type { Logger } from '../logger.js';
import { messageOf } from '../message-of.js';
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
  /** By runKey, oldest first. */
  const ended = new Map<string, EndedRun>();
  let droppedAt: number | undefined;

  const forgetOld = (now: number) => {
    for (const [key, run] of ended) {
      if (now - run.at < o.lockDurationMs) break;
      ended.delete(key);
    }
  };
  const remember = (run: EndedRun) => {
    forgetOld(run.at);
    ended.set(runKey(run), run);
  };

  /** Answers whether Redis refused some of the finishes made again (they are kept, to be tried again). */
  async function recover(droppedAt: number, why = 'in a Redis failover (written to the old primary)'): Promise<boolean> {
    forgetOld(Date.now());
    const runs = [...ended.values()].filter((r) => r.at <= droppedAt);
    let completedAgain = 0;
    let putBack = 0;
    let refusedAgain = false;
    const queues = new Set<string>();
    for (let i = 0; i < runs.length; i += CHUNK) {
      const chunk = runs.slice(i, i + CHUNK);
      const reads = o.conn.pipeline();
      for (const { job } of chunk) {
        const key = `${job.queueQualifiedName}:${job.id}`;
        reads.get(`${key}:lock`).hget(key, 'processedOn');
      }
      const replies = (await reads.exec()) ?? [];
      const value = (n: number) => replies[n]?.[1];
      // Still active under this run: its lock (removed by every finish), taken by this very fetch (a token serves
      // a chain of fetches, and a fetch the failover dropped may have been made again since).
      const lost = chunk.filter((run, k) => value(2 * k) === run.token && Number(value(2 * k + 1)) === run.job.processedOn);
      await Promise.all(
        lost.map(async (run) => {
          ended.delete(runKey(run));
          queues.add(run.job.queueName);
          try {
            if (run.returned) {
              await run.job.moveToCompleted(run.result, run.token, false);
              completedAgain++;
            } else {
              await run.job.moveToWait(run.token);
              putBack++;
            }
          } catch (err) {
            if (refusedByRedis(err)) {
              // Redis still refuses writes: kept for the next try.
              ended.set(runKey(run), run);
              refusedAgain = true;
              return;
            }
            // Settled meanwhile (its own finish came through after all, or the lock expired): nothing left to do.
            o.logger.debug({ jobId: run.job.id, err: messageOf(err) }, 'a finish thought lost was settled meanwhile');
          }
        }),
      );
    }
    if (completedAgain + putBack > 0)
      o.logger.info({ queues: [...queues], completedAgain, putBack }, `job finishes lost ${why} made again`);
    return refusedAgain;
  }

  let retrying: NodeJS.Timeout | undefined;
  let busy = false;
  const retryRefused = () => {
    if (retrying) return;
    retrying = setInterval(() => {
      if (busy) return;
      busy = true;
      recover(Date.now() - SETTLE_MS, 'while Redis refused writes')
        .then((refusedAgain) => {
          if (!refusedAgain && retrying) {
            clearInterval(retrying);
            retrying = undefined;
          }
        })
        .catch(() => undefined)
        .finally(() => {
          busy = false;
        });
    }, REFUSED_RETRY_MS);
    retrying.unref();
  };

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
      recover(at).catch((err: unknown) =>
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
    wrap<D, R>(processor: Processor<D, R>): Processor<D, R> {
      const run = async (job: Job<D, R>, token?: string, signal?: AbortSignal) => {
        let returned = false;
        let result: R | undefined;
        try {
          result = await processor(job, token, signal);
          returned = true;
          return result;
        } finally {
          if (token && job.id) remember({ job: job as Job, token, at: Date.now(), returned, result });
        }
      };
      // BullMQ hands an abort signal only to a processor that declares three parameters: as many as the one wrapped.
      return processor.length >= 3 ? run : (job, token) => run(job, token);
    },
    noteError(err) {
      if (refusedByRedis(err)) retryRefused();
    },
    stop() {
      o.conn.off('close', onClose);
      o.conn.off('ready', onReady);
      if (retrying) clearInterval(retrying);
      retrying = undefined;
      ended.clear();
    },
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
