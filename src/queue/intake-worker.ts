import { defaults } from '../../config/defaults.js';
import { Worker, type Job, type Queue } from 'bullmq';
import type { RedisConnection as Redis } from '../redis/connection.js';
import { logRedisError } from '../redis/error-log.js';
import type { StreamName } from '../records/stream-name.js';
import type { FinishGuard } from './finish-guard.js';
import { expandBatch, type IntakeResult } from './intake.js';
import { intakeQueueName, type IntakeData } from './intake-queue.js';
import type { IntakeWorker, PoolState } from './pool-state.js';
import type { JobData } from './queues.js';
import { skipIdleStalledChecks } from './stalled-check-skip.js';
import { wakeAfterRefusal } from './wake-after-refusal.js';
import type { StartWorkersOptions } from './start-workers-options.js';
import { countJobs } from './pool-state.js';

/** The intake worker of a stream: expands its imported batches into record jobs, one batch at a time. */
export function startIntakeWorker(
  o: StartWorkersOptions,
  s: PoolState,
  stream: StreamName,
  conn: Redis,
  guard: FinishGuard,
  queue: Queue<JobData>,
) {
  const runIntake = async (job: Job<IntakeData, IntakeResult>) => {
    const result = await expandBatch(job, queue);
    o.logger.debug({ stream, jobId: job.id, records: result.records }, result.summary);
    return result;
  };
  createIntakeWorker(o, s, stream, conn, guard, guard.wrap(countJobs(s, runIntake)));
}

/** Makes the stream's intake worker. */
function createIntakeWorker(
  o: StartWorkersOptions,
  s: PoolState,
  stream: StreamName,
  conn: Redis,
  guard: FinishGuard,
  run: (job: Job<IntakeData, IntakeResult>, token?: string, signal?: AbortSignal) => Promise<IntakeResult>,
): IntakeWorker {
  const intakeWorker = new Worker<IntakeData, IntakeResult>(intakeQueueName(stream), run, {
    connection: conn,
    prefix: o.prefix,
    concurrency: 1,
    settings: { backoffStrategy: s.backoffStrategy },
    lockDuration: s.lockDuration,
    stalledInterval: o.stalledIntervalMs ?? defaults.stalledCheckMs,
    maxStalledCount: s.maxStalledCount,
    drainDelay: s.drainSeconds,
  });
  skipIdleStalledChecks(intakeWorker, conn);
  const wake = wakeAfterRefusal(intakeWorker, conn);
  // Counted with the record workers' errors of the same reason (same Redis): one line per reason every 30 s.
  intakeWorker.on('error', (err) => {
    guard.noteError(err);
    wake(err);
    logRedisError(o.logger, 'intake worker', err, { stream });
  });
  intakeWorker.on('failed', (job, err) =>
    o.logger.warn({ stream, jobId: job?.id, err: err.message }, 'intake batch not expanded (retried while attempts remain)'),
  );
  s.intakeWorkers.set(stream, intakeWorker);
  o.watch?.intake?.(intakeWorker, stream);
  return intakeWorker;
}
