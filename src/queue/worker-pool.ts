import { Queue, Worker, type Job } from 'bullmq';
import { defaults } from '../../config/defaults.js';
import { createRedis, type RedisConnection as Redis } from '../redis/connection.js';
import { DEFAULT_BAD_RECORD_RETENTION, retainBadRecord } from './bad-record-retention.js';
import { intakeQueueName, type IntakeData } from './intake-queue.js';
import type { JobResult } from './job-context.js';
import { startOutageWatch } from './hold/hold-watch.js';
import { startWaitWatch } from './wait/wait-look.js';
import { countJobs, poolState, type IntakeWorker, type PoolState, type RecordWorker } from './pool-state.js';
import { startIntakeWorker } from './intake-worker.js';
import { skipIdleStalledChecks } from './stalled-check-skip.js';
import { failureCodeOf } from './failure-code.js';
import { finishGuardFor, type FinishGuard } from './finish-guard.js';
import { createProcessor } from './job-runner.js';
import { recordJobOptions, type JobData } from './queues.js';
import type { StartWorkersOptions } from './start-workers-options.js';
import { startSizing } from './worker-sizing.js';
import { wakeAfterRefusal } from './wake-after-refusal.js';
import type { StreamName } from '../records/stream-name.js';
import { messageOf } from '../errors/message-of.js';
import { logRedisError } from '../redis/error-log.js';

export { skipIdleStalledChecks };
import type { RunnerKind } from './runner-kind.js';

/**
 * BullMQ honours a manual rate limit (queue.rateLimit) only on workers that have a limiter; this one is
 * far above any real rate, so it never limits on its own.
 */
const UNLIMITED = { max: 1_000_000_000, duration: 1_000 };

export type { StartWorkersOptions };

export interface WorkerPool {
  /** Per stream, the record worker. */
  workers: Map<StreamName, RecordWorker>;
  /** Per stream, the worker that fans intake batches (imports) out into record jobs. */
  intakeWorkers: Map<StreamName, IntakeWorker>;
  /** Whether every record worker runs: for readiness. */
  running(): boolean;
  /** Calls `watch` with each stream's record worker. */
  eachWorker(watch: (worker: RecordWorker, stream: StreamName) => void): void;
  /** Jobs running now in this process. */
  active(): number;
  /** Jobs each record worker may run at once now. */
  concurrency(): number;
  /**
   * Stops taking jobs, lets active ones finish within graceMs, then force-closes. Jobs still active then
   * stay in BullMQ's active list; once their lock expires (lockDurationMs) the stalled-job check of any
   * worker moves them back to wait, and they run again (every job kind is safe to re-run).
   * Answers whether it had to force.
   */
  close(graceMs: number): Promise<{ forced: boolean }>;
}

/** The record worker of a stream: its processor with the rate-limit, breaker and outage holds, bad records trimmed. */
function startRecordWorker(o: StartWorkersOptions, s: PoolState, kind: RunnerKind, conn: Redis, guard: FinishGuard, queue: Queue<JobData>) {
  const processor = createProcessor(kind, o.deps, {
    ...o.processor,
    // A 429 holds every worker of the queue, in every process, until the service's reset.
    rateLimit: async (ms) => queue.rateLimit(Math.max(ms, await queue.getRateLimitTtl(UNLIMITED.max))),
    // A refusal about the account pauses the queue for every process; producers ask the breaker before pulling.
    ...(o.breaker === false
      ? {}
      : { breaker: { ...o.breaker, threshold: o.breaker?.threshold ?? defaults.breakerThreshold, pause: () => queue.pause() } }),
    ...(s.outage ? { outage: s.outage } : {}),
    ...(s.calls ? { calls: s.calls } : {}),
    ...(o.waits ? { waits: { boundMs: o.waits.boundMs, lookSoon: () => s.waitWatch?.lookNow() } } : {}),
  });
  createRecordWorker(o, s, kind, conn, guard, queue, guard.wrap(countJobs(s, processor)));
}

/** Makes the stream's record worker and tells the start's watcher (StartWorkersOptions.watch). */
function createRecordWorker(
  o: StartWorkersOptions,
  s: PoolState,
  kind: RunnerKind,
  conn: Redis,
  guard: FinishGuard,
  queue: Queue<JobData>,
  run: (job: Job<JobData, JobResult>, token?: string, signal?: AbortSignal) => Promise<JobResult>,
): RecordWorker {
  const worker = new Worker<JobData, JobResult>(kind.stream, run, {
    connection: conn,
    prefix: o.prefix,
    concurrency: o.concurrency,
    limiter: UNLIMITED,
    // BullMQ's per-minute counts of finished jobs, for the dashboard's charts; every worker must keep the same number.
    metrics: { maxDataPoints: defaults.flowKeepMinutes },
    settings: { backoffStrategy: s.backoffStrategy },
    lockDuration: s.lockDuration,
    stalledInterval: o.stalledIntervalMs ?? defaults.stalledCheckMs,
    maxStalledCount: s.maxStalledCount,
    drainDelay: s.drainSeconds,
    telemetry: o.telemetry,
  });
  skipIdleStalledChecks(worker, conn);
  const wake = wakeAfterRefusal(worker, conn);
  worker.on('error', (err) => {
    // A finish Redis refused (full) is made again as soon as it takes writes, not a minute later (finish-guard.ts).
    guard.noteError(err);
    // A fetch it refused: the worker woken as soon as it takes writes, not a drainDelay later (wake-after-refusal.ts).
    wake(err);
    logRedisError(o.logger, 'worker', err, { stream: kind.stream });
  });
  // Bad records can come by the million from a broken upstream: only the newest are kept (the runner's code says which).
  worker.on('failed', (job, err) => {
    if (!job?.id || failureCodeOf(err) !== 'BAD_RECORD') return;
    retainBadRecord(queue, conn, job.id, o.badRecords ?? DEFAULT_BAD_RECORD_RETENTION).catch((e: unknown) =>
      o.logger.debug({ stream: kind.stream, err: messageOf(e) }, 'could not trim old bad-record jobs; done at the next one'),
    );
  });
  s.workers.set(kind.stream, worker);
  o.watch?.record?.(worker, kind.stream);
  return worker;
}

/**
 * One stream's finish guard, queues and both workers, on the pool's connection: one for every stream, since BullMQ's
 * non-blocking commands need no connection of their own (each worker's blocking wait has one), and connections
 * count when one Redis serves hundreds of accounts (issue 36).
 */
async function startStream(o: StartWorkersOptions, s: PoolState, kind: RunnerKind): Promise<void> {
  if (s.workers.has(kind.stream)) throw new Error(`two job kinds for stream ${kind.stream}`);
  // Named, as BullMQ names each worker's: CLIENT LIST tells an account's connections apart (`{prefix}:pool`).
  const conn = (s.conn ??= createRedis(o.connection, { connectionName: `${o.prefix}:pool` }));
  // A planned Sentinel failover drops the finishes written in its last second to the old primary: made again at once.
  const guard = finishGuardFor(o.connection, conn, { lockDurationMs: s.lockDuration, logger: o.logger.child({ stream: kind.stream }) });
  s.guards.push(guard);
  // Record jobs that intake batches become get the same options as jobs added any other way.
  const queue = new Queue<JobData>(kind.stream, {
    connection: conn,
    prefix: o.prefix,
    defaultJobOptions: recordJobOptions(o.deps.jobs),
    telemetry: o.telemetry,
  });
  const intakeQueue = new Queue<IntakeData>(intakeQueueName(kind.stream), { connection: conn, prefix: o.prefix });
  // Unheard, BullMQ prints them raw; counted with the workers' errors of the same reason.
  queue.on('error', (err) => logRedisError(o.logger, 'queue', err, { stream: kind.stream }));
  intakeQueue.on('error', (err) => logRedisError(o.logger, 'queue', err, { stream: kind.stream }));
  s.owned.push(queue, intakeQueue);
  s.recordQueues.set(kind.stream, queue);
  await intakeQueue.setGlobalConcurrency(1);
  startRecordWorker(o, s, kind, conn, guard, queue);
  startIntakeWorker(o, s, kind.stream, conn, guard, queue);
}

/** Closes everything a start opened (force-closing the workers). */
async function abandon(s: PoolState): Promise<void> {
  await Promise.all([...s.workers.values(), ...s.intakeWorkers.values()].map((w) => w.close(true).catch(() => undefined)));
  await Promise.all(s.owned.map((queue) => queue.close().catch(() => undefined)));
  s.conn?.disconnect();
  for (const guard of s.guards) guard.stop();
}

/** Stops taking jobs, lets active ones finish within graceMs, then closes (forced if they did not). */
async function closePool(o: StartWorkersOptions, s: PoolState, graceMs: number): Promise<{ forced: boolean }> {
  await s.watch?.stop();
  await s.waitWatch?.stop();
  const all = [...s.workers.values(), ...s.intakeWorkers.values()];
  // pause() stops fetching at once (it interrupts the blocking wait) and resolves when active jobs are done.
  const pausing = Promise.all(all.map((w) => w.pause()));
  const idle = await Promise.race([pausing.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), graceMs).unref())]);
  // Jobs still running are not aborted mid-call: their outcome is left for the next run to settle.
  if (!idle)
    o.logger.warn(
      { active: s.active },
      `active jobs did not finish within ${graceMs} ms; closing anyway (they are taken back once their lock expires)`,
    );
  // Forced: lock renewal stops, so BullMQ's stalled-job check of any worker takes the jobs back.
  await Promise.all(all.map((w) => w.close(!idle).catch(() => undefined)));
  for (const guard of s.guards) guard.stop();
  await Promise.all(s.owned.map((queue) => queue.close().catch(() => undefined)));
  s.conn?.disconnect();
  return { forced: !idle };
}

/**
 * One BullMQ worker per kind of job, on one Redis connection for the pool (and each worker's blocking one), sharing
 * the runner's deps; and beside each
 * an intake worker that turns the stream's imported batches into record jobs, one batch at a time across every
 * process (the intake queue's global concurrency is 1, so batches become jobs in the order they were imported).
 */
export async function startWorkers(o: StartWorkersOptions): Promise<WorkerPool> {
  const s = poolState(o);
  try {
    for (const kind of o.kinds) await startStream(o, s, kind);
    await Promise.all([...s.workers.values(), ...s.intakeWorkers.values()].map((w) => w.waitUntilReady()));
  } catch (err) {
    // A start that Redis refused halfway (full, read-only) leaves nothing open: the caller may try again.
    await abandon(s);
    throw err;
  }
  const sizer = o.sizing && startSizing(o.sizing, () => [...s.workers.values()], o.logger);
  if (s.outage)
    s.watch = startOutageWatch({
      ...s.outage,
      redis: o.deps.redis,
      keys: o.deps.keys,
      queues: s.recordQueues,
      logger: o.logger,
      ...(s.calls ? { calls: s.calls.holds } : {}),
    });
  if (o.waits)
    s.waitWatch = startWaitWatch({
      redis: o.deps.redis,
      keys: o.deps.keys,
      catalog: o.deps.catalog,
      queues: s.recordQueues as ReadonlyMap<string, Queue>,
      logger: o.logger,
      lookMs: o.waits.lookMs,
    });
  return {
    workers: s.workers,
    intakeWorkers: s.intakeWorkers,
    running: () => [...s.workers.values()].every((w) => w.isRunning()),
    eachWorker(watch) {
      for (const [stream, worker] of s.workers) watch(worker, stream);
    },
    active: () => s.active,
    concurrency: () => s.workers.values().next().value?.concurrency ?? o.concurrency,
    async close(graceMs) {
      sizer?.stop();
      return closePool(o, s, graceMs);
    },
  };
}
