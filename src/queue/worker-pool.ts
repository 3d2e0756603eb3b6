import { Queue, Worker, type Job, type Telemetry } from 'bullmq';
import { defaults } from '../../config/defaults.js';
import type { Config } from '../../config/read-config.js';
import type { Logger } from '../logger.js';
import { createRedis, type RedisConnection as Redis, type RedisTarget } from '../redis/connection.js';
import { jitteredBackoff } from './backoff.js';
import { sizeConcurrency, type ConcurrencyBounds, type Pace } from './concurrency-sizer.js';
import { DEFAULT_BAD_RECORD_RETENTION, retainBadRecord, type BadRecordRetention } from './bad-record-retention.js';
import { expandBatch, type IntakeResult } from './intake.js';
import { intakeQueueName, type IntakeData } from './intake-queue.js';
import type { JobResult } from './job-kind.js';
import type { BreakerHooks } from './breaker-hold.js';
import type { OutageHooks } from './outage-hold.js';
import { startOutageWatch, type OutageWatch, type OutageWatchOptions } from './outage-watch.js';
import { failureCodeOf } from './failure-code.js';
import { finishGuardFor, type FinishGuard } from './finish-guard.js';
import { createProcessor, type ProcessorOptions, type RunnerDeps } from './job-runner.js';
import { recordJobOptions, type JobData } from './queues.js';
import type { StreamName } from '../records/stream-def.js';
import { messageOf } from '../message-of.js';
import { logRedisError } from '../redis/error-log.js';
import type { Kind } from '../kinds/kind.js';

/**
 * BullMQ honours a manual rate limit (queue.rateLimit) only on workers that have a limiter; this one is
 * far above any real rate, so it never limits on its own.
 */
const UNLIMITED = { max: 1_000_000_000, duration: 1_000 };

export interface StartWorkersOptions {
  kinds: Kind[];
  /** Redis URL or target (a cluster's seed nodes); each worker gets connections of its own. */
  connection: RedisTarget | string;
  prefix: string;
  deps: RunnerDeps;
  /** Jobs run at once per queue (with `sizing`: the first size). */
  concurrency: number;
  /** Concurrency that follows the budget's rate and the service's latency (concurrency-sizer.ts), sized every `everyMs`. Default: fixed. */
  sizing?: { pace: Pace; bounds: ConcurrencyBounds; everyMs?: number };
  logger: Logger;
  /** Retry delays; default deps.jobs. */
  retry?: Pick<Config['jobs'], 'retryBaseDelayMs' | 'retryMaxDelayMs'> & { jitter?: 'equal' | 'full' };
  processor?: Omit<ProcessorOptions, 'rateLimit' | 'breaker' | 'outage'>;
  /**
   * Every stream holding while the service is down (src/queue/outage-hold.ts, outage-watch.ts): the probe that tells
   * when it answers again, and the timings. Default: none (the service down is retried job by job, then counted by the
   * breaker).
   */
  outage?: Omit<OutageHooks, 'holdAll'> & Pick<OutageWatchOptions, 'probe' | 'lookMs' | 'probeMaxMs' | 'onEnd'>;
  /**
   * Each stream's circuit breaker (src/queue/breaker-hold.ts): its threshold (default BREAKER_THRESHOLD's default)
   * and delays, or false to settle every refusal job by job.
   */
  breaker?: (Omit<BreakerHooks, 'threshold' | 'pause'> & { threshold?: number }) | false;
  /** BullMQ job lock duration, ms: a crashed worker's jobs are taken back after about this long. Default 30 000. */
  lockDurationMs?: number;
  /** Interval of BullMQ's stalled-job check, ms. Default 30 000. */
  stalledIntervalMs?: number;
  /** How many failed bad-record jobs each stream keeps, for how long. Default BAD_RECORDS_KEEP, BAD_RECORDS_KEEP_DAYS. */
  badRecords?: BadRecordRetention;
  /**
   * Times a job may be taken back from a worker that died while running it (SIGKILL, OOM, a lost host) before it
   * fails for good. BullMQ's default, 1, fails a record whose workers happen to die twice under it, though every
   * job kind is safe to run again. Default: the jobs' attempts (deps.jobs.attempts), so only a job that keeps
   * killing its worker ends failed ("job stalled more than allowable limit").
   */
  maxStalledCount?: number;
  /** BullMQ telemetry (tracing on): a `process <stream>` span per attempt, the job span of src/telemetry/. Default: none. */
  telemetry?: Telemetry;
}

export interface WorkerPool {
  workers: Map<StreamName, Worker<JobData, JobResult>>;
  /** Per stream, the worker that fans intake batches (imports) out into record jobs. */
  intakeWorkers: Map<StreamName, Worker<IntakeData, IntakeResult>>;
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

/**
 * One BullMQ worker per kind of job, each with its own Redis connection, sharing the runner's deps; and beside each
 * an intake worker that turns the stream's imported batches into record jobs, one batch at a time across every
 * process (the intake queue's global concurrency is 1, so batches become jobs in the order they were imported).
 */
export async function startWorkers(o: StartWorkersOptions): Promise<WorkerPool> {
  const retry = o.retry ?? o.deps.jobs;
  const maxStalledCount = o.maxStalledCount ?? o.deps.jobs.attempts;
  const backoffStrategy = jitteredBackoff({
    baseDelayMs: retry.retryBaseDelayMs,
    maxDelayMs: retry.retryMaxDelayMs,
    jitter: o.retry?.jitter,
  });
  const workers = new Map<StreamName, Worker<JobData, JobResult>>();
  const intakeWorkers = new Map<StreamName, Worker<IntakeData, IntakeResult>>();
  const owned: Array<{ conn: Redis; queue: Queue }> = [];
  /** Each stream's record queue, held together while the service is down. */
  const recordQueues = new Map<StreamName, Queue>();
  let watch: OutageWatch | undefined;
  const outage = o.outage && {
    ...o.outage,
    holdAll: async () => {
      await Promise.all([...recordQueues.values()].map((q) => q.pause()));
      watch?.lookNow();
    },
  };
  const guards: FinishGuard[] = [];
  const lockDuration = o.lockDurationMs ?? defaults.jobLockMs;
  let active = 0;

  try {
    for (const kind of o.kinds) {
      if (workers.has(kind.stream)) throw new Error(`two job kinds for stream ${kind.stream}`);
      const conn = createRedis(o.connection);
      // A planned Sentinel failover drops the finishes written in its last second to the old primary: made again at once.
      const guard = finishGuardFor(o.connection, conn, { lockDurationMs: lockDuration, logger: o.logger.child({ stream: kind.stream }) });
      guards.push(guard);
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
      owned.push({ conn, queue }, { conn, queue: intakeQueue });
      recordQueues.set(kind.stream, queue);
      await intakeQueue.setGlobalConcurrency(1);
      const processor = createProcessor(kind, o.deps, {
        ...o.processor,
        // A 429 holds every worker of the queue, in every process, until the service's reset.
        rateLimit: async (ms) => queue.rateLimit(Math.max(ms, await queue.getRateLimitTtl(UNLIMITED.max))),
        // A refusal about the account pauses the queue for every process; producers ask the breaker before pulling.
        ...(o.breaker === false
          ? {}
          : { breaker: { ...o.breaker, threshold: o.breaker?.threshold ?? defaults.breakerThreshold, pause: () => queue.pause() } }),
        ...(outage ? { outage } : {}),
      });
      const runRecord = async (job: Job<JobData, JobResult>, token?: string, signal?: AbortSignal) => {
        active++;
        try {
          return await processor(job, token, signal);
        } finally {
          active--;
        }
      };
      const worker = new Worker<JobData, JobResult>(kind.stream, guard.wrap(runRecord), {
        connection: conn,
        prefix: o.prefix,
        concurrency: o.concurrency,
        limiter: UNLIMITED,
        // BullMQ's per-minute counts of finished jobs, for the dashboard's charts; every worker must keep the same number.
        metrics: { maxDataPoints: defaults.flowKeepMinutes },
        settings: { backoffStrategy },
        lockDuration,
        stalledInterval: o.stalledIntervalMs ?? defaults.stalledCheckMs,
        maxStalledCount,
        telemetry: o.telemetry,
      });
      worker.on('error', (err) => {
        // A finish Redis refused (full) is made again as soon as it takes writes, not a minute later (finish-guard.ts).
        guard.noteError(err);
        logRedisError(o.logger, 'worker', err, { stream: kind.stream });
      });
      // Bad records can come by the million from a broken upstream: only the newest are kept (the runner's code says which).
      worker.on('failed', (job, err) => {
        if (!job?.id || failureCodeOf(err) !== 'BAD_RECORD') return;
        retainBadRecord(queue, conn, job.id, o.badRecords ?? DEFAULT_BAD_RECORD_RETENTION).catch((e: unknown) =>
          o.logger.debug({ stream: kind.stream, err: messageOf(e) }, 'could not trim old bad-record jobs; done at the next one'),
        );
      });
      workers.set(kind.stream, worker);

      const runIntake = async (job: Job<IntakeData, IntakeResult>) => {
        active++;
        try {
          const result = await expandBatch(job, queue);
          o.logger.debug({ stream: kind.stream, jobId: job.id, records: result.records }, result.summary);
          return result;
        } finally {
          active--;
        }
      };
      const intakeWorker = new Worker<IntakeData, IntakeResult>(intakeQueue.name, guard.wrap(runIntake), {
        connection: conn,
        prefix: o.prefix,
        concurrency: 1,
        settings: { backoffStrategy },
        lockDuration,
        stalledInterval: o.stalledIntervalMs ?? defaults.stalledCheckMs,
        maxStalledCount,
      });
      // Counted with the record workers' errors of the same reason (same Redis): one line per reason every 30 s.
      intakeWorker.on('error', (err) => {
        guard.noteError(err);
        logRedisError(o.logger, 'intake worker', err, { stream: kind.stream });
      });
      intakeWorker.on('failed', (job, err) =>
        o.logger.warn(
          { stream: kind.stream, jobId: job?.id, err: err.message },
          'intake batch not expanded (retried while attempts remain)',
        ),
      );
      intakeWorkers.set(kind.stream, intakeWorker);
    }
    await Promise.all([...workers.values(), ...intakeWorkers.values()].map((w) => w.waitUntilReady()));
  } catch (err) {
    // A start that Redis refused halfway (full, read-only) leaves nothing open: the caller may try again.
    await Promise.all([...workers.values(), ...intakeWorkers.values()].map((w) => w.close(true).catch(() => undefined)));
    await Promise.all(owned.map(({ queue }) => queue.close().catch(() => undefined)));
    for (const { conn } of owned) conn.disconnect();
    for (const guard of guards) guard.stop();
    throw err;
  }
  const sizer = o.sizing && startSizing(o.sizing, [...workers.values()], o.logger);
  if (o.outage) watch = startOutageWatch({ ...o.outage, redis: o.deps.redis, keys: o.deps.keys, queues: recordQueues, logger: o.logger });

  return {
    workers,
    intakeWorkers,
    active: () => active,
    concurrency: () => workers.values().next().value?.concurrency ?? o.concurrency,
    async close(graceMs) {
      sizer?.stop();
      await watch?.stop();
      const all = [...workers.values(), ...intakeWorkers.values()];
      // pause() stops fetching at once (it interrupts the blocking wait) and resolves when active jobs are done.
      const pausing = Promise.all(all.map((w) => w.pause()));
      const idle = await Promise.race([pausing.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), graceMs).unref())]);
      // Jobs still running are not aborted mid-call: their outcome is left for the next run to settle.
      if (!idle)
        o.logger.warn(
          { active },
          `active jobs did not finish within ${graceMs} ms; closing anyway (they are taken back once their lock expires)`,
        );
      // Forced: lock renewal stops, so BullMQ's stalled-job check of any worker takes the jobs back.
      await Promise.all(all.map((w) => w.close(!idle).catch(() => undefined)));
      for (const guard of guards) guard.stop();
      await Promise.all(owned.map(({ queue }) => queue.close().catch(() => undefined)));
      for (const { conn } of owned) conn.disconnect();
      return { forced: !idle };
    },
  };
}

/** Sizes the record workers' concurrency again every `everyMs` from the pace (BullMQ reads `worker.concurrency` as it fetches). */
function startSizing(
  s: NonNullable<StartWorkersOptions['sizing']>,
  workers: Array<Worker<JobData, JobResult>>,
  logger: Logger,
): { stop(): void } {
  let busy = false;
  const tick = async () => {
    if (busy) return;
    busy = true;
    try {
      await s.pace.refresh?.().catch(() => undefined);
      const latency = s.pace.latencyMs() ?? defaults.assumedLatencyMs;
      const n = sizeConcurrency(s.pace.ratePerSecond(), latency, s.bounds);
      if (workers[0] && workers[0].concurrency !== n)
        logger.debug(
          { concurrency: n, ratePerSecond: Math.round(s.pace.ratePerSecond() * 10) / 10, latencyMs: Math.round(latency) },
          'jobs at once sized again',
        );
      for (const w of workers) w.concurrency = n;
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void tick(), s.everyMs ?? defaults.concurrencySizeMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
