import { settleLater, SettleLaterError } from './settle-later.js';
import { DelayedError, RateLimitError, UnrecoverableError, type Job } from 'bullmq';
import { defaults } from '../../config/defaults.js';
import type { Logger } from '../log/logger.js';
import type { RedisConnection as Redis } from '../redis/connection.js';
import { beforeGoLive, goLiveFloor, goLiveSkipped } from './go-live.js';
import { holdCauseOf } from './hold/hold.js';
import { holdJob, type OutageHooks, type RefusalHooks } from './hold/hold-job.js';
import { callHoldLayer, heldCallOf } from './hold/call-hold-layer.js';
import { holdAtCall, type CallHoldHooks } from './hold/hold-at-call.js';
import { recordSuccess } from './hold/refusal-state.js';
import { classifyFailure, type Failure } from './failure.js';
import { recordFailureGroup } from './failure-group.js';
import { BadRecordError, MissingReferenceError } from './job-errors.js';
import { waitForReference, type WaitHooks } from './wait/wait-at-reference.js';
import type { JobContext, JobResult, RunnerDeps } from './job-context.js';
import { takeLease, type JobLease } from './lease/job-lease.js';
import { ABANDONED_TEXT, settledText } from './lease/lease-words.js';
import { isLeaseLost } from './lease/lease-lost.js';
import { fenceLayer } from '../client/layers/fence-layer.js';
import type { FromService, JobData } from './queues.js';
import { checkedJobRecord } from './checked-record.js';
import { couldNot, JobAttempt } from './job-attempt.js';
import { tracedClient } from './traced-client.js';
import { withFailureCode } from './failure-code.js';
import { logRepeated } from '../log/log-throttle.js';
import type { RunnerKind } from './runner-kind.js';

export type { RunnerDeps } from './job-context.js';

export interface ProcessorOptions {
  /** Holds the whole queue for ms (BullMQ queue.rateLimit). Without it a rate-limited job alone is delayed. */
  rateLimit?: (ms: number) => Promise<void>;
  /**
   * Life of an execution's lease on its record in ms (src/queue/lease/), renewed while the job runs: the job's lock
   * life (JOB_LOCK_SECONDS), which BullMQ's own lock has too. Default 30 000.
   */
  leaseMs?: number;
  /** How long a job whose key is busy waits before it is tried again, in ms (plus jitter). Default 500. */
  keyBusyDelayMs?: number;
  /** How long after a lost answer the service may still apply the write, in ms (JobContext.lateWriteMs). Default 60 000. */
  lateWriteMs?: number;
  /** Hold used when a 429 gives no reset time, in ms. Default 5 000. */
  defaultHoldMs?: number;
  /** The stream's hold for refusals, the circuit breaker (src/queue/hold/); without it refusals settle job by job. */
  breaker?: RefusalHooks;
  /** Every stream held while the service is down (src/queue/hold/); without it the service down is retried job by job. */
  outage?: OutageHooks;
  /** The holds of the service's named calls (src/queue/hold/call-hold.ts): a job waits at a held call. Default: none. */
  calls?: CallHoldHooks;
  /**
   * The run's caller lists every record that failed for good (a one-shot command's summary): the failure is logged at
   * info (LOG_FILE, --verbose) rather than as an error on the person's stderr beside the same list. Default false.
   */
  listsFailures?: boolean;
  /**
   * A record that names what the service lacks waits for it, no attempt spent (src/queue/wait/). Without it (a one-shot
   * run, which ends before anything could appear) it fails as a bad record.
   */
  waits?: WaitHooks;
}

export type RecordProcessor = (job: Job<JobData, JobResult>, token?: string, signal?: AbortSignal) => Promise<JobResult>;

/**
 * The BullMQ processor of one kind of job. Per attempt: check the record, take the business key's lock
 * (a busy key delays the job without spending an attempt), run the kind with a traced client, write
 * the attempt's trace as one job log line, and turn errors into fail / retry / queue-wide hold.
 */
export function createProcessor<R>(kind: RunnerKind<R>, deps: RunnerDeps, opts: ProcessorOptions = {}): RecordProcessor {
  return async (job, token, signal) => {
    const attempt = new JobAttempt(job, kind.stream, deps);
    try {
      const checked = checkedJobRecord(kind, job);
      attempt.keyed(checked.key);
      return (
        (await skippedBeforeGoLive(kind, deps, checked, attempt)) ??
        (await runLocked(kind, deps, opts, { job, token, signal, attempt, ...checked }))
      );
    } catch (err) {
      return await attemptFailed(kind, deps, opts, { job, token, attempt }, err);
    }
  };
}

/** What one attempt runs with. */
interface Run<R> {
  job: Job<JobData, JobResult>;
  token: string | undefined;
  signal?: AbortSignal | undefined;
  attempt: JobAttempt;
  record: R;
  key: string;
  fromService?: FromService | undefined;
}

/** Before go-live: no lock, no catalog, no call; the job ends skipped. Undefined when the record is live. */
async function skippedBeforeGoLive<R>(
  kind: RunnerKind<R>,
  deps: RunnerDeps,
  { record, key }: { record: R; key: string },
  attempt: JobAttempt,
): Promise<JobResult | undefined> {
  const floor = goLiveFloor(kind, deps.goLive);
  const early = beforeGoLive(kind, record, floor);
  if (early === undefined) return undefined;
  const result = goLiveSkipped(key, early, kind.job.goLive!.field, floor!);
  await attempt.writeTrace({ result });
  attempt.spans?.end(result.outcome);
  attempt.logger.info({ outcome: result.outcome, attempt: attempt.trace.attempt }, result.summary);
  return result;
}

/**
 * Runs the kind under this execution's lease on its record (src/queue/lease/); a key another job holds delays the job
 * (DelayedError) without spending an attempt. A write in flight that an earlier execution of the job left is told, and
 * the kind settles it by reading as it settles a lost answer.
 */
async function runLocked<R>(kind: RunnerKind<R>, deps: RunnerDeps, opts: ProcessorOptions, run: Run<R>): Promise<JobResult> {
  const { job, attempt } = run;
  const ttlMs = opts.leaseMs ?? defaults.keyLockTtlMs;
  const lease = await takeLease(deps.redis, deps.keys, { stream: kind.stream, key: run.key, jobId: String(job.id), ttlMs });
  if (!lease) {
    // Another job of the same key is running: come back shortly, without spending an attempt.
    attempt.logger.debug('business key busy; job delayed');
    const busyMs = opts.keyBusyDelayMs ?? defaults.keyBusyDelayMs;
    await job.moveToDelayed(Date.now() + busyMs + Math.floor(Math.random() * busyMs), run.token);
    throw new DelayedError();
  }
  let ended = false;
  try {
    const result = await kind.job.process(run.record, jobContext(kind, deps, run, lease, opts));
    // A zombie that had nothing left to write does not complete the job either: the newer execution owns it.
    lease.assertHeld();
    ended = true;
    if (lease.found) attempt.note(settledText(lease.found));
    await attempt.writeTrace({ result });
    const logger = attempt.logger;
    // A synced job ends the breaker's row (hold.ts: running(n) → running(0)); each call's row ends with its own answers.
    if (opts.breaker)
      await recordSuccess(deps.redis, deps.keys, kind.stream).catch((err: Error) => couldNot(logger, 'reset the breaker count', err));
    attempt.spans?.end(result.outcome);
    logger.info(
      { outcome: result.outcome, attempt: attempt.trace.attempt, ms: attempt.trace.ms, calls: attempt.trace.calls.length },
      result.summary,
    );
    return result;
  } catch (err) {
    // A write of this execution whose outcome the kind knew (it threw its own error) is in the progress already.
    ended = !isLeaseLost(err);
    throw err;
  } finally {
    await lease.release(ended);
  }
}

/**
 * What the kind's processing gets: a client traced into the attempt (and held at a held call of the service), the
 * catalog, Redis, its logger and notes.
 */
function jobContext<R>(
  kind: RunnerKind<R>,
  deps: RunnerDeps,
  { job, signal, attempt, fromService }: Run<R>,
  lease: JobLease,
  opts: ProcessorOptions,
): JobContext {
  const spans = attempt.spans;
  // Every write fenced by the lease (fence-layer.ts); a fence older than its bound is made again as the request leaves.
  const traced = tracedClient(deps.client, attempt.onCall, signal).with(fenceLayer(lease));
  return {
    jobId: String(job.id),
    stream: kind.stream,
    attempt: attempt.trace.attempt,
    client: opts.calls ? traced.with(callHoldLayer(opts.calls.holds, String(job.id))) : traced,
    catalog: deps.catalog,
    redis: deps.redis,
    keys: deps.keys,
    logger: attempt.logger,
    jobs: deps.jobs,
    lock: { assertHeld: () => lease.assertHeld() },
    note: (message, data) => attempt.note(message, data),
    settling: (pending, fn) => (spans ? spans.settling(pending, fn) : fn()),
    lateWriteMs: opts.lateWriteMs ?? defaults.lateWriteMs,
    ...(fromService ? { fromService } : {}),
  };
}

/** An attempt that threw: its trace written, then held for its cause (src/queue/hold/), retried or failed (settle). */
async function attemptFailed<R>(
  kind: RunnerKind<R>,
  deps: RunnerDeps,
  opts: ProcessorOptions,
  { job, token, attempt }: Pick<Run<R>, 'job' | 'token' | 'attempt'>,
  thrown: unknown,
): Promise<never> {
  const { spans, logger } = attempt;
  // A record that names what the service lacks waits for it; past its bound it fails for good with what it waited for.
  const err =
    opts.waits && thrown instanceof MissingReferenceError
      ? await waitForReference(job, token, thrown, { attempt, stream: kind.stream, deps, hooks: opts.waits })
      : thrown;
  if (err instanceof DelayedError) {
    spans?.end('delayed');
    throw err;
  }
  if (isLeaseLost(err)) return await leaseLost(job, token, attempt, opts);
  if (err instanceof SettleLaterError) return await settleLater(job, token, attempt, err);
  // A held call of the service: the job waits at that step with its progress, no attempt spent (src/queue/hold/).
  const call = opts.calls && heldCallOf(err);
  if (call) return await holdAtCall(job, token, { call, err, attempt, stream: kind.stream, deps, hooks: opts.calls! });
  const failure = classifyFailure(err);
  const retried = failure.action === 'retry' && attempt.trace.attempt < (job.opts.attempts ?? 1);
  spans?.end(failure.action === 'hold' ? 'held' : retried ? 'retry' : 'failed', failure.code);
  const { action, resetAt, group, refusal, ...shown } = failure;
  await attempt.writeTrace({ error: shown });
  // A refusal about the account, or the service down: the job waits (no attempt spent) while its cause's hold counts.
  const cause = holdCauseOf(failure, job.attemptsMade + 1 >= (job.opts.attempts ?? 1), !!opts.outage);
  const hooks = { refusals: opts.breaker, outage: opts.outage };
  if (cause && (await holdJob(job, token, failure, cause, { redis: deps.redis, keys: deps.keys, stream: kind.stream, logger, hooks })))
    throw new DelayedError();
  return await settle(job, token, failure, logger, deps.redis, opts);
}

/**
 * The attempt stopped at the fence before a write because its lease was no longer current (this process was paused
 * longer than the lock's life, and the job was taken again, here or in another process): the newer execution owns the
 * job, and this one neither completes nor fails it. It is put back for later when it is still ours (the lease expired
 * and nobody took the job), and left alone when it is not.
 */
async function leaseLost(job: Job, token: string | undefined, attempt: JobAttempt, opts: ProcessorOptions): Promise<never> {
  attempt.spans?.end('delayed');
  attempt.note(ABANDONED_TEXT);
  await attempt.writeTrace({});
  attempt.logger.warn(
    { code: 'LEASE_LOST' },
    `${ABANDONED_TEXT}: this worker was paused longer than the lock's life and another worker has the job; ` +
      'stopped before the write, nothing counted as failed',
  );
  const busyMs = opts.keyBusyDelayMs ?? defaults.keyBusyDelayMs;
  await job.moveToDelayed(Date.now() + busyMs, token).catch(() => undefined);
  throw new DelayedError();
}

/** Logs the failure with what to do, then throws what steers BullMQ. Never returns. */
async function settle(
  job: Job,
  token: string | undefined,
  f: Failure,
  logger: Logger,
  redis: Redis,
  opts: ProcessorOptions,
): Promise<never> {
  const reason = `[${f.code}] ${f.message}`;
  const attempts = job.opts.attempts ?? 1;
  const attempt = job.attemptsMade + 1;
  if (f.action === 'hold') {
    const holdMs = Math.max(1, (f.resetAt ?? Date.now() + (opts.defaultHoldMs ?? defaults.rateLimitHoldMs)) - Date.now());
    logRepeated(
      logger,
      'warn',
      `hold:${f.code}`,
      { code: f.code, holdMs, hint: f.hint },
      `${reason}; the queue waits ${holdMs} ms for the service budget; no attempt spent`,
    );
    if (opts.rateLimit) {
      await opts.rateLimit(holdMs);
      throw new RateLimitError();
    }
    await job.moveToDelayed(Date.now() + holdMs, token);
    throw new DelayedError();
  }
  // The job fails (for good or this attempt): its group goes beside the failedReason BullMQ writes next.
  await recordFailureGroup(redis, job, f.group, f.retryHelps !== false, reason).catch((err: Error) =>
    couldNot(logger, 'record the failure group', err),
  );
  const finalLevel = opts.listsFailures ? 'info' : 'error';
  if (f.action === 'fail') {
    logger[finalLevel]({ code: f.code, attempt, hint: f.hint }, `job failed for good: ${reason}. ${f.hint}`);
    throw withFailureCode(new UnrecoverableError(reason), f.code);
  }
  if (attempt >= attempts)
    logger[finalLevel]({ code: f.code, attempt, attempts, hint: f.hint }, `job failed after ${attempts} attempts: ${reason}. ${f.hint}`);
  // The service or Redis down fails every job's attempt alike: one line per code every 30 s, with the count.
  else
    logRepeated(
      logger,
      'warn',
      `retry:${f.code}`,
      { code: f.code, attempt, attempts, hint: f.hint },
      `attempt ${attempt} of ${attempts} failed: ${reason}; retried with backoff`,
    );
  const retry = new Error(reason);
  retry.name = f.code === 'INTERNAL' ? 'InternalJobError' : 'TransientJobError';
  throw withFailureCode(retry, f.code);
}
