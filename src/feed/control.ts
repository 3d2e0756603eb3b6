import { Queue, Worker, type Job } from 'bullmq';
import { z } from 'zod';
import type { Config } from '../../config/read-config.js';
import type { FeedPage, FetchPageOptions } from './upstream-client.js';
import type { Logger } from '../logger.js';
import { createRedis, type RedisConnection as Redis, type RedisKeys, type RedisTarget } from '../redis.js';
import { pullStream, type PullResult } from './producer.js';
import { CONTROL_QUEUE, type QueueSet } from '../queue/queues.js';
import { perStream, STREAMS, type StreamName } from '../../jobs/streams.js';
import { messageOf } from '../message-of.js';

/** The job schedulers of the control queue, one per stream. */
export const SCHEDULERS = perStream((d) => d.scheduler);

const controlDataSchema = z.object({ stream: z.enum(STREAMS), scheduler: z.string() });
type ControlData = z.infer<typeof controlDataSchema>;

/** One scheduled run, as hooks see it. */
export interface ControlRun {
  scheduler: string;
  stream: StreamName;
  jobId: string;
  startedAt: Date;
}

/** Where other parts plug into scheduled pulls (e.g. the stock sync around its stock-count pull). */
export interface ControlHooks {
  /** Before a scheduled pull; throwing fails the run. */
  beforePull?(run: ControlRun): Promise<void>;
  /** After a scheduled pull queued its records. */
  afterPull?(run: ControlRun, result: PullResult): Promise<void>;
  /** After each `stock-sync` cron run's pull of the stock-count stream. */
  onStockSyncRun?(run: ControlRun, result: PullResult): Promise<void>;
}

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
  /** Streams to schedule. Default: those of `queues`. */
  streams?: StreamName[];
  hooks?: ControlHooks;
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
}

/** The control queue, for reading schedules without running them (status, dashboard). Closing it leaves `redis` open. */
export function openControlQueue(redis: Redis, prefix: string): Queue<ControlData> {
  const queue = new Queue<ControlData>(CONTROL_QUEUE, { connection: redis, prefix });
  // Unheard, BullMQ prints connection errors raw, past the logger; the control worker logs the outage.
  queue.on('error', () => undefined);
  return queue;
}

/** Last and next runs of every scheduler of the control queue. */
export async function readScheduleInfo(queue: Queue, redis: Redis, keys: RedisKeys): Promise<ScheduleInfo[]> {
  const [schedulers, runs] = await Promise.all([queue.getJobSchedulers(0, -1, true), redis.hgetall(keys.schedule())]);
  return schedulers.map((s) => {
    const id = String(s.id ?? s.key);
    const stream = (Object.keys(SCHEDULERS) as StreamName[]).find((k) => SCHEDULERS[k] === id);
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

/** Upserts the schedulers (order and BOM polling, the stock-count cron) and runs their pulls. */
export async function startControl(o: StartControlOptions): Promise<Control> {
  const queue = openControlQueue(o.redis, o.prefix);
  const keep = { removeOnComplete: { count: 200 }, removeOnFail: { age: 7 * 24 * 3600, count: 1_000 } };
  const streams = o.streams ?? o.queues.streams();
  for (const stream of streams) {
    const scheduler = SCHEDULERS[stream];
    const repeat =
      stream === 'stock-counts'
        ? { pattern: o.schedule.stockSyncCron, ...(o.schedule.stockSyncTz ? { tz: o.schedule.stockSyncTz } : {}) }
        : { every: Math.round((stream === 'orders' ? o.schedule.orderPollSeconds : o.schedule.bomPollSeconds) * 1000) };
    // A missed daily stock sync is worth a few retries; a failed poll is simply redone by the next one.
    const attempts = stream === 'stock-counts' ? { attempts: 5, backoff: { type: 'exponential', delay: 10_000 } } : { attempts: 1 };
    await queue.upsertJobScheduler(scheduler, repeat, { name: scheduler, data: { stream, scheduler }, opts: { ...keep, ...attempts } });
  }

  const conn = createRedis(o.connection);
  const record = (scheduler: string, fields: Record<string, string>) =>
    o.redis.hset(o.keys.schedule(), Object.fromEntries(Object.entries(fields).map(([k, v]) => [`${scheduler}.${k}`, v])));

  const processor = async (job: Job<ControlData, PullResult>): Promise<PullResult> => {
    const { stream, scheduler } = controlDataSchema.parse(job.data);
    const run: ControlRun = { scheduler, stream, jobId: String(job.id), startedAt: new Date() };
    const log = o.logger.child({ scheduler, stream });
    try {
      await o.hooks?.beforePull?.(run);
      const result = await pullStream({ stream, upstream: o.upstream, queue: o.queues.get(stream), redis: o.redis, keys: o.keys, pageSize: o.pageSize, logger: log });
      if (scheduler === SCHEDULERS['stock-counts']) await o.hooks?.onStockSyncRun?.(run, result);
      await o.hooks?.afterPull?.(run, result);
      const next = (await queue.getJobScheduler(scheduler).catch(() => undefined))?.next;
      await record(scheduler, {
        lastRunAt: run.startedAt.toISOString(),
        lastOk: '1',
        lastResult: JSON.stringify(result),
        ...(next ? { nextRunAt: new Date(next).toISOString() } : {}),
      });
      await o.redis.hdel(o.keys.schedule(), `${scheduler}.lastError`);
      return result;
    } catch (err) {
      const message = messageOf(err);
      const hint = (err as { hint?: unknown }).hint;
      log.error({ err: message, hint }, `scheduled pull of ${stream} failed: ${message}${typeof hint === 'string' ? `. ${hint}` : ''}; the next run tries again`);
      await record(scheduler, { lastRunAt: run.startedAt.toISOString(), lastOk: '0', lastError: message }).catch(() => undefined);
      throw err;
    }
  };
  const worker = new Worker<ControlData, PullResult>(CONTROL_QUEUE, processor, { connection: conn, prefix: o.prefix, concurrency: STREAMS.length });
  worker.on('error', (err) => o.logger.error({ err: err.message }, 'control worker error (Redis?); BullMQ reconnects and goes on'));
  await worker.waitUntilReady();

  return {
    queue,
    worker,
    scheduleInfo: () => readScheduleInfo(queue, o.redis, o.keys),
    async removeSchedulers() {
      for (const stream of streams) await queue.removeJobScheduler(SCHEDULERS[stream]);
    },
    async close(graceMs = 10_000) {
      const closing = worker.close();
      const closed = await Promise.race([closing.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), graceMs).unref())]);
      if (!closed) o.logger.warn(`a scheduled pull did not finish within ${graceMs} ms; it resumes from its cursor next time`);
      await queue.close();
      conn.disconnect();
    },
  };
}
