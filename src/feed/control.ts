import { Queue, Worker, type Job } from 'bullmq';
import { z } from 'zod';
import type { Config } from '../../config/read-config.js';
import type { FeedPage, FetchPageOptions } from './upstream-client.js';
import type { Logger } from '../log/logger.js';
import { createRedis, type RedisConnection as Redis, type RedisKeys, type RedisTarget } from '../redis/connection.js';
import type { PullResult } from './producer.js';
import { CONTROL_QUEUE, type QueueSet } from '../queue/queues.js';
import { finishGuardFor } from '../queue/finish-guard.js';
import { skipIdleStalledChecks } from '../queue/worker-pool.js';
import { wakeAfterRefusal } from '../queue/wake-after-refusal.js';
import { defaults } from '../../config/defaults.js';
import type { StreamName } from '../records/stream-name.js';
import { logRedisError } from '../redis/error-log.js';
import { mendSchedulers, pullScheduleOf, upsertScheduler, type PulledKind } from './scheduler-watchdog.js';
import { logPullFailed, recordSchedule, runScheduledPull } from './scheduled-pull.js';
import { nextTickAt, startPullTicker, type PullTicker } from './pull-ticker.js';
import { keepScheduleSince, startMakeUp } from './make-up.js';
import { jsonField, slotOfRepeatJob, type MissedRun } from './missed-runs.js';

/** The control worker's job lock (BullMQ's default): a pull that a dead worker left is taken back after about this long. */
const CONTROL_LOCK_MS = 30_000;
const controlDataSchema = z.object({ stream: z.string().min(1), scheduler: z.string() });
type ControlData = z.infer<typeof controlDataSchema>;

export interface StartControlOptions {
  /** Redis URL or target (a cluster's seed nodes); the control worker (cron streams only) gets connections of its own. */
  connection: RedisTarget | string;
  prefix: string;
  redis: Redis;
  keys: RedisKeys;
  upstream: { fetchPage(stream: StreamName, o: FetchPageOptions): Promise<FeedPage> };
  queues: QueueSet;
  schedule: Config['schedule'];
  /** How old a missed scheduled pull may be and still be made up, in ms (SCHEDULE_CATCH_UP_SECONDS). Default: the default's. */
  catchUpMs?: number;
  /** How often missed pulls are looked for, in ms (tests). Default defaults.makeUpLookMs. */
  makeUpLookMs?: number;
  pageSize: number;
  logger: Logger;
  /** The streams to schedule, each pulled as its kind says (`pull`, `beforePull`). */
  kinds: readonly PulledKind[];
}

export interface ScheduleInfo {
  scheduler: string;
  stream?: StreamName;
  every?: number;
  pattern?: string;
  tz?: string;
  nextRunAt?: string;
  lastRunAt?: string;
  lastOk?: boolean;
  /** Counts of the last successful pull. */
  lastResult?: PullResult;
  lastError?: string;
  /** When the last pull that fetched began (epoch ms): it covers every slot before it. */
  fetchedAt?: number;
  /** The latest slot a run served without fetching (held, failed), while no pull has covered it since. */
  missed?: MissedRun;
  /** The last run that made up a missed slot: the slot, when it ran, why the slot was missed. */
  madeUp?: MissedRun & { at: number };
  /** The last missed slot found older than the catch-up window (not made up). */
  notMadeUp?: MissedRun;
}

export interface Control {
  queue: Queue<ControlData>;
  /** Runs the job schedulers' pulls (cron streams); none when every stream is pulled on an interval (its ticker). */
  worker?: Worker<ControlData, PullResult>;
  scheduleInfo(): Promise<ScheduleInfo[]>;
  /** Stops the tickers and the control worker (a running pull finishes first, within graceMs); leaves the schedulers in Redis. */
  close(graceMs?: number): Promise<void>;
  /** Removes the job schedulers this control upserted (and their pending next runs), e.g. before a test deletes its prefix. */
  removeSchedulers(): Promise<void>;
  /**
   * Upserts the job schedulers whose next run is missing (Redis refused to add it: full, read-only), so pulls go on at
   * once rather than once the stalled-job check takes the taken run back; answers their ids. Tickers need no mending:
   * a refused claim is simply tried again at the next slot.
   */
  mendSchedulers(): Promise<string[]>;
}

/** The control queue, for reading schedules without running them (status, dashboard). Closing it leaves `redis` open. */
export function openControlQueue(redis: Redis, prefix: string): Queue<ControlData> {
  const queue = new Queue<ControlData>(CONTROL_QUEUE, { connection: redis, prefix });
  // Unheard, BullMQ prints connection errors raw, past the logger; the control worker logs the outage.
  queue.on('error', () => undefined);
  return queue;
}

/**
 * Last and next runs of every scheduler of the control queue, and of every ticker that `kinds` has (their interval and
 * next run as the schedule hash says), each with its stream when `kinds` has it; in the order of `kinds`.
 */
export async function readScheduleInfo(
  queue: Queue,
  redis: Redis,
  keys: RedisKeys,
  kinds: readonly { stream: string; feed: Pick<PulledKind['feed'], 'scheduler'> }[],
): Promise<ScheduleInfo[]> {
  const [schedulers, runs] = await Promise.all([queue.getJobSchedulers(0, -1, true), redis.hgetall(keys.schedule())]);
  const info = (id: string, s: { every?: number | null; pattern?: string | null; tz?: string | null; next?: number }): ScheduleInfo => {
    const field = (name: string) => runs[`${id}.${name}`];
    const lastResult = field('lastResult');
    return {
      scheduler: id,
      stream: kinds.find((k) => k.feed.scheduler === id)?.stream,
      every: s.every ?? undefined,
      pattern: s.pattern ?? undefined,
      tz: s.tz ?? undefined,
      nextRunAt: s.next ? new Date(s.next).toISOString() : field('nextRunAt'),
      lastRunAt: field('lastRunAt'),
      lastOk: field('lastOk') === undefined ? undefined : field('lastOk') === '1',
      lastResult: lastResult ? (JSON.parse(lastResult) as PullResult) : undefined,
      lastError: field('lastError') || undefined,
      fetchedAt: field('fetchedAt') ? Number(field('fetchedAt')) : undefined,
      missed: jsonField<MissedRun>(field('missed')),
      madeUp: jsonField<MissedRun & { at: number }>(field('madeUp')),
      notMadeUp: jsonField<MissedRun>(field('notMadeUp')),
    };
  };
  const infos = schedulers.map((s) => info(String(s.id ?? s.key), s));
  for (const { feed } of kinds) {
    const every = runs[`${feed.scheduler}.every`];
    if (every !== undefined && !infos.some((i) => i.scheduler === feed.scheduler))
      infos.push(info(feed.scheduler, { every: Number(every) }));
  }
  const rank = (i: ScheduleInfo) => {
    const at = kinds.findIndex((k) => k.feed.scheduler === i.scheduler);
    return at < 0 ? kinds.length : at;
  };
  return infos.sort((a, b) => rank(a) - rank(b));
}

/**
 * Pulls each stream as its kind says: an interval by a ticker of this process (src/feed/pull-ticker.ts), a cron by a
 * job scheduler of the control queue and its worker (started only when a stream has one).
 */
export async function startControl(o: StartControlOptions): Promise<Control> {
  const queue = openControlQueue(o.redis, o.prefix);
  const ticked = o.kinds.filter((k) => 'every' in pullScheduleOf(k, o.schedule));
  const scheduled = o.kinds.filter((k) => !ticked.includes(k));
  // A job scheduler that an older version left for a stream now ticked would pull it a second time.
  for (const kind of ticked) await queue.removeJobScheduler(kind.feed.scheduler);
  for (const kind of scheduled) await upsertScheduler(queue, kind, o.schedule);
  for (const kind of ticked) await recordTicked(o, kind);
  await keepScheduleSince(o, o.kinds);
  const worker = scheduled.length ? await startControlWorker(o, queue, scheduled.length) : undefined;
  const abort = new AbortController();
  const tickers = ticked.map((kind) => startStreamTicker(o, kind, abort.signal));
  // A pull that fell due while its stream was held, Redis away or no worker running: made up once (make-up.ts).
  const makeUp = startMakeUp({
    ...o,
    catchUpMs: o.catchUpMs ?? defaults.scheduleCatchUpSeconds * 1000,
    ...(o.makeUpLookMs ? { lookMs: o.makeUpLookMs } : {}),
    nextRunAt: (kind) => nextRunOf(o, queue, kind),
  });
  const stopTickers = () => {
    tickers.forEach((t) => t.stop());
    void makeUp.stop();
  };

  return {
    queue,
    worker: worker?.worker,
    scheduleInfo: () => readScheduleInfo(queue, o.redis, o.keys, o.kinds),
    mendSchedulers: () => mendSchedulers(queue, scheduled, o.schedule),
    async removeSchedulers() {
      for (const kind of scheduled) await queue.removeJobScheduler(kind.feed.scheduler);
    },
    async close(graceMs = 10_000) {
      stopTickers();
      const closing = Promise.all([worker?.worker.close(), ...tickers.map((t) => t.idle())]);
      const closed = await Promise.race([
        closing.then(() => true),
        new Promise<boolean>((r) => setTimeout(() => r(false), graceMs).unref()),
      ]);
      if (!closed) {
        o.logger.warn(`a scheduled pull did not finish within ${graceMs} ms; it resumes from its cursor next time`);
        abort.abort();
      }
      worker?.stop();
      await queue.close();
    },
  };
}

/** A scheduler's next run: a ticker's next slot, a job scheduler's next job. */
async function nextRunOf(o: StartControlOptions, queue: Queue, kind: PulledKind): Promise<Date | undefined> {
  if ('every' in pullScheduleOf(kind, o.schedule)) return nextTickAt(o.keys.pullClaim(kind.stream), everyMsOf(kind, o.schedule));
  const next = (await queue.getJobScheduler(kind.feed.scheduler))?.next;
  return next ? new Date(next) : undefined;
}

/** A stream's interval, in ms (its kind's `pull` gave `every`). */
const everyMsOf = (kind: PulledKind, schedule: Config['schedule']) =>
  Math.round((pullScheduleOf(kind, schedule) as { every: number }).every * 1000);

/** Writes a ticked stream's interval and next run into the schedule hash, for status, before its first pull. */
function recordTicked(o: StartControlOptions, kind: PulledKind) {
  const everyMs = everyMsOf(kind, o.schedule);
  const next = nextTickAt(o.keys.pullClaim(kind.stream), everyMs);
  return recordSchedule(o, kind.feed.scheduler, { every: String(everyMs), nextRunAt: next.toISOString() });
}

/** A stream's ticker: each slot's pull run and recorded as a job scheduler's run is. */
function startStreamTicker(o: StartControlOptions, kind: PulledKind, signal: AbortSignal): PullTicker {
  const { scheduler } = kind.feed;
  const log = o.logger.child({ scheduler, stream: kind.stream });
  return startPullTicker({
    redis: o.redis,
    claimKey: o.keys.pullClaim(kind.stream),
    everyMs: everyMsOf(kind, o.schedule),
    run: (next) =>
      runScheduledPull(o, {
        scheduler,
        stream: kind.stream,
        dueAt: next.getTime() - everyMsOf(kind, o.schedule),
        nextRunAt: async () => next,
        signal,
      }).then(
        () => undefined,
        () => undefined, // logged and recorded; the next slot tries again
      ),
    onClaimError: (err) => logPullFailed(log, kind.stream, err),
  });
}

/** The control queue's worker, for the job schedulers' pulls. */
async function startControlWorker(o: StartControlOptions, queue: Queue<ControlData>, concurrency: number) {
  const conn = createRedis(o.connection);
  // A pull's completion that a planned Sentinel failover drops is made again at once (src/queue/finish-guard.ts).
  const guard = finishGuardFor(o.connection, conn, { lockDurationMs: CONTROL_LOCK_MS, logger: o.logger });
  const worker = new Worker<ControlData, PullResult>(CONTROL_QUEUE, guard.wrap(pullProcessor(o, queue)), {
    connection: conn,
    prefix: o.prefix,
    concurrency,
    lockDuration: CONTROL_LOCK_MS,
    // Woken by its queue's marker when a cron's next run falls due: an idle wait of a minute costs nothing in delay.
    drainDelay: defaults.workerDrainSeconds,
  });
  skipIdleStalledChecks(worker, conn);
  const wake = wakeAfterRefusal(worker, conn);
  worker.on('error', (err) => {
    guard.noteError(err);
    wake(err);
    logRedisError(o.logger, 'control worker', err);
  });
  await worker.waitUntilReady();
  return {
    worker,
    stop() {
      guard.stop();
      conn.disconnect();
    },
  };
}

/** The control worker's processor: one scheduled pull of a stream, its run recorded for status and the dashboard. */
function pullProcessor(o: StartControlOptions, queue: Queue<ControlData>) {
  return async (job: Job<ControlData, PullResult>): Promise<PullResult> => {
    const { stream, scheduler } = controlDataSchema.parse(job.data);
    const nextRunAt = async () => {
      const next = (await queue.getJobScheduler(scheduler))?.next;
      return next ? new Date(next) : undefined;
    };
    return runScheduledPull(o, { scheduler, stream, dueAt: slotOfRepeatJob(job.id, job.timestamp), nextRunAt });
  };
}
