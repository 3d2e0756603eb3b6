import { Queue, Worker, type Job } from 'bullmq';
import { z } from 'zod';
import type { Config } from '../../config/read-config.js';
import type { FeedPage, FetchPageOptions } from './upstream-client.js';
import type { Logger } from '../log/logger.js';
import { kindOf } from '../records/records.js';
import { createRedis, type RedisConnection as Redis, type RedisKeys, type RedisTarget } from '../redis/connection.js';
import { pullStream, type PullResult } from './producer.js';
import { CONTROL_QUEUE, type QueueSet } from '../queue/queues.js';
import { finishGuardFor } from '../queue/finish-guard.js';
import type { StreamName } from '../records/stream-name.js';
import { messageOf } from '../errors/message-of.js';
import { logRepeated, reasonOf } from '../log/log-throttle.js';
import { logRedisError } from '../redis/error-log.js';
import { mendSchedulers, upsertScheduler, type PulledKind } from './scheduler-watchdog.js';

/** The control worker's job lock (BullMQ's default): a pull that a dead worker left is taken back after about this long. */
const CONTROL_LOCK_MS = 30_000;
const controlDataSchema = z.object({ stream: z.string().min(1), scheduler: z.string() });
type ControlData = z.infer<typeof controlDataSchema>;

export interface StartControlOptions {
  /** Redis URL or target (a cluster's seed nodes); the control worker gets connections of its own. */
  connection: RedisTarget | string;
  prefix: string;
  redis: Redis;
  keys: RedisKeys;
  upstream: { fetchPage(stream: StreamName, o: FetchPageOptions): Promise<FeedPage> };
  queues: QueueSet;
  schedule: Config['schedule'];
  pageSize: number;
  logger: Logger;
  /** The streams to schedule, each pulled as its kind says (`pull`, `pullAttempts`, `beforePull`). */
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
}

export interface Control {
  queue: Queue<ControlData>;
  worker: Worker<ControlData, PullResult>;
  scheduleInfo(): Promise<ScheduleInfo[]>;
  /** Stops the control worker (a running pull finishes first, within graceMs) and leaves the schedulers in Redis. */
  close(graceMs?: number): Promise<void>;
  /** Removes the schedulers this control upserted (and their pending next runs), e.g. before a test deletes its prefix. */
  removeSchedulers(): Promise<void>;
  /**
   * Upserts the schedulers whose next run is missing (Redis refused to add it: full, read-only), so pulls go on at once
   * rather than once the stalled-job check takes the taken run back; answers their ids.
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

/** Last and next runs of every scheduler of the control queue, each with its stream when `kinds` has it. */
export async function readScheduleInfo(
  queue: Queue,
  redis: Redis,
  keys: RedisKeys,
  kinds: readonly { stream: string; feed: Pick<PulledKind['feed'], 'scheduler'> }[],
): Promise<ScheduleInfo[]> {
  const [schedulers, runs] = await Promise.all([queue.getJobSchedulers(0, -1, true), redis.hgetall(keys.schedule())]);
  return schedulers.map((s) => {
    const id = String(s.id ?? s.key);
    const stream = kinds.find((k) => k.feed.scheduler === id)?.stream;
    const field = (name: string) => runs[`${id}.${name}`];
    const lastResult = field('lastResult');
    return {
      scheduler: id,
      stream,
      every: s.every ?? undefined,
      pattern: s.pattern ?? undefined,
      tz: s.tz ?? undefined,
      nextRunAt: s.next ? new Date(s.next).toISOString() : field('nextRunAt'),
      lastRunAt: field('lastRunAt'),
      lastOk: field('lastOk') === undefined ? undefined : field('lastOk') === '1',
      lastResult: lastResult ? (JSON.parse(lastResult) as PullResult) : undefined,
      lastError: field('lastError') || undefined,
    };
  });
}

/** Upserts the schedulers (each stream's `pull`: an interval or a cron, from the configuration) and runs their pulls. */
export async function startControl(o: StartControlOptions): Promise<Control> {
  const queue = openControlQueue(o.redis, o.prefix);
  for (const kind of o.kinds) await upsertScheduler(queue, kind, o.schedule);

  const conn = createRedis(o.connection);
  // A pull's completion that a planned Sentinel failover drops is made again at once (src/queue/finish-guard.ts).
  const guard = finishGuardFor(o.connection, conn, { lockDurationMs: CONTROL_LOCK_MS, logger: o.logger });
  const worker = new Worker<ControlData, PullResult>(CONTROL_QUEUE, guard.wrap(pullProcessor(o, queue)), {
    connection: conn,
    prefix: o.prefix,
    concurrency: Math.max(1, o.kinds.length),
    lockDuration: CONTROL_LOCK_MS,
  });
  worker.on('error', (err) => {
    guard.noteError(err);
    logRedisError(o.logger, 'control worker', err);
  });
  await worker.waitUntilReady();

  return {
    queue,
    worker,
    scheduleInfo: () => readScheduleInfo(queue, o.redis, o.keys, o.kinds),
    mendSchedulers: () => mendSchedulers(queue, o.kinds, o.schedule),
    async removeSchedulers() {
      for (const kind of o.kinds) await queue.removeJobScheduler(kind.feed.scheduler);
    },
    async close(graceMs = 10_000) {
      const closing = worker.close();
      const closed = await Promise.race([
        closing.then(() => true),
        new Promise<boolean>((r) => setTimeout(() => r(false), graceMs).unref()),
      ]);
      if (!closed) o.logger.warn(`a scheduled pull did not finish within ${graceMs} ms; it resumes from its cursor next time`);
      guard.stop();
      await queue.close();
      conn.disconnect();
    },
  };
}

/** The control worker's processor: one scheduled pull of a stream, its run recorded for status and the dashboard. */
function pullProcessor(o: StartControlOptions, queue: Queue<ControlData>) {
  const record = (scheduler: string, fields: Record<string, string>) =>
    o.redis.hset(o.keys.schedule(), Object.fromEntries(Object.entries(fields).map(([k, v]) => [`${scheduler}.${k}`, v])));

  return async (job: Job<ControlData, PullResult>): Promise<PullResult> => {
    const { stream, scheduler } = controlDataSchema.parse(job.data);
    const startedAt = new Date();
    const log = o.logger.child({ scheduler, stream });
    try {
      const kind = kindOf(o.kinds, stream);
      await kind.feed.beforePull?.({ redis: o.redis, keys: o.keys });
      const result = await pullStream({
        kind,
        upstream: o.upstream,
        queue: o.queues.get(stream),
        redis: o.redis,
        keys: o.keys,
        pageSize: o.pageSize,
        logger: log,
      });
      const next = (await queue.getJobScheduler(scheduler).catch(() => undefined))?.next;
      await record(scheduler, {
        lastRunAt: startedAt.toISOString(),
        lastOk: '1',
        lastResult: JSON.stringify(result),
        ...(next ? { nextRunAt: new Date(next).toISOString() } : {}),
      });
      await o.redis.hdel(o.keys.schedule(), `${scheduler}.lastError`);
      return result;
    } catch (err) {
      logPullFailed(log, stream, err);
      await record(scheduler, { lastRunAt: startedAt.toISOString(), lastOk: '0', lastError: messageOf(err) }).catch(() => undefined);
      throw err;
    }
  };
}

/** The feed, the service or Redis down fails every poll: one line per stream and reason every 30 s. */
function logPullFailed(log: Logger, stream: string, err: unknown): void {
  const message = messageOf(err);
  const hint = (err as { hint?: unknown }).hint;
  logRepeated(
    log,
    'error',
    `pull:${stream}:${reasonOf(err)}`,
    { err: message, hint },
    `scheduled pull of ${stream} failed: ${message}${typeof hint === 'string' ? `. ${hint}` : ''}; the next run tries again`,
  );
}
