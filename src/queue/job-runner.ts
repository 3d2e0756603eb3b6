import { DelayedError, RateLimitError, UnrecoverableError, type Job } from 'bullmq';
import type { ApiCall } from '../client/service-api.js';
import { defaults } from '../../config/defaults.js';
import { problemsOf, recordKey } from '../records/records.js';
import type { Logger } from '../logger.js';
import type { RedisConnection as Redis } from '../redis/connection.js';
import { beforeGoLive, goLiveFloor, goLiveSkipped } from './go-live.js';
import { countsForBreaker, holdForBreaker, type BreakerHooks, type HoldContext } from './breaker-hold.js';
import { holdForOutage, type OutageHooks } from './outage-hold.js';
import { recordServiceUp } from './service-outage.js';
import { classifyFailure, type Failure } from './failure.js';
import { recordFailureGroup } from './failure-group.js';
import { BadRecordError } from './job-errors.js';
import type { JobContext, JobResult, RunnerDeps } from './job-kind.js';
import { tryLock } from '../redis/key-lock.js';
import { recordSuccess } from './stream-breaker.js';
import { jobDataSchema, type FromService, type JobData } from './queues.js';
import { recordLabel } from './record-jobs.js';
import { traceLine, type RunningTrace } from './job-trace.js';
import { tracedClient } from './traced-client.js';
import { withFailureCode } from './failure-code.js';
import { logRepeated, reasonOf } from '../log-throttle.js';
import type { Kind } from '../kinds/kind.js';

export type { RunnerDeps } from './job-kind.js';

export interface ProcessorOptions {
  /** Holds the whole queue for ms (BullMQ queue.rateLimit). Without it a rate-limited job alone is delayed. */
  rateLimit?: (ms: number) => Promise<void>;
  /** Life of the per-business-key lock in ms, renewed while the job runs. Default 30 000. */
  keyLockTtlMs?: number;
  /** How long a job whose key is busy waits before it is tried again, in ms (plus jitter). Default 500. */
  keyBusyDelayMs?: number;
  /** Hold used when a 429 gives no reset time, in ms. Default 5 000. */
  defaultHoldMs?: number;
  /** The stream's circuit breaker (src/queue/breaker-hold.ts); without it refusals settle job by job. */
  breaker?: BreakerHooks;
  /** Every stream holding while the service is down (src/queue/outage-hold.ts); without it the service down is retried job by job. */
  outage?: OutageHooks;
}

export type RecordProcessor = (job: Job<JobData, JobResult>, token?: string, signal?: AbortSignal) => Promise<JobResult>;

/**
 * The record of a job, checked against its kind; a BadRecordError naming record, field and reason otherwise
 * (the dry run checks with it too, so its bad records read as the real run's).
 */
export function checkedJobRecord<R>(kind: Kind<R>, job: Pick<Job, 'data' | 'id'>): { record: R; key: string; fromService?: FromService } {
  const data = jobDataSchema.safeParse(job.data);
  if (!data.success) {
    const issue = data.error.issues[0];
    throw new BadRecordError(`job ${job.id}`, `data.${issue?.path.join('.') ?? ''}`, issue?.message ?? 'is not { record, source }');
  }
  const label = recordLabel(kind, data.data, job.id);
  if (data.data.parseError !== undefined)
    throw new BadRecordError(label, data.data.line === undefined ? '(record)' : '(line)', data.data.parseError);
  const parsed = kind.schema.safeParse(data.data.record);
  if (!parsed.success) {
    const [first, ...more] = problemsOf(parsed.error);
    const also = more.length ? ` (and ${more.map((p) => `${p.field}: ${p.reason}`).join('; ')})` : '';
    throw new BadRecordError(label, first?.field ?? '(record)', `${first?.reason ?? 'does not match its shape'}${also}`);
  }
  const key = recordKey(kind, data.data.record) ?? label;
  return data.data.fromService ? { record: parsed.data, key, fromService: data.data.fromService } : { record: parsed.data, key };
}

/**
 * The BullMQ processor of one kind of job. Per attempt: check the record, take the business key's lock
 * (a busy key delays the job without spending an attempt), run the kind with a traced client, write
 * the attempt's trace as one job log line, and turn errors into fail / retry / queue-wide hold.
 */
export function createProcessor<R>(kind: Kind<R>, deps: RunnerDeps, opts: ProcessorOptions = {}): RecordProcessor {
  const keyLockTtlMs = opts.keyLockTtlMs ?? defaults.keyLockTtlMs;
  const keyBusyDelayMs = opts.keyBusyDelayMs ?? defaults.keyBusyDelayMs;

  return async (job, token, signal) => {
    const started = Date.now();
    const trace: RunningTrace = { attempt: job.attemptsMade + 1, startedAt: new Date(started).toISOString(), calls: [], notes: [] };
    let logger = deps.logger.child({ jobId: job.id, stream: kind.stream });
    // Only when tracing is on: otherwise no span is made (src/telemetry/).
    const spans = deps.jobTracing?.attempt({ stream: kind.stream, jobId: String(job.id), attempt: trace.attempt });
    const onCall = (call: ApiCall) => {
      trace.calls.push(call);
      spans?.onCall(call);
      // One line per write, for an audit kept as long as the logs are (docs/operations.md, "Audit").
      if (call.method === 'POST')
        logger.info({ write: { method: call.method, path: call.path, status: call.status, error: call.error } }, 'service write');
    };
    const writeTrace = async (end: Parameters<typeof traceLine>[1]) => {
      trace.ms = Date.now() - started;
      await job.log(traceLine(trace, end)).catch((err: Error) => couldNot(logger, 'write the attempt trace', err));
    };
    try {
      const { record, key, fromService } = checkedJobRecord(kind, job);
      logger = logger.child({ key });
      spans?.key(key);
      // Before go-live: no lock, no catalog, no call.
      const floor = goLiveFloor(kind, deps.goLive);
      const early = beforeGoLive(kind, record, floor);
      if (early !== undefined) {
        const result = goLiveSkipped(key, early, kind.goLive!.field, floor!);
        await writeTrace({ result });
        spans?.end(result.outcome);
        logger.info({ outcome: result.outcome, attempt: trace.attempt }, result.summary);
        return result;
      }
      const lock = await tryLock(deps.redis, deps.keys.lock(kind.stream, key), keyLockTtlMs);
      if (!lock) {
        // Another job of the same key is running: come back shortly, without spending an attempt.
        logger.debug('business key busy; job delayed');
        await job.moveToDelayed(Date.now() + keyBusyDelayMs + Math.floor(Math.random() * keyBusyDelayMs), token);
        throw new DelayedError();
      }
      try {
        const ctx: JobContext = {
          jobId: String(job.id),
          stream: kind.stream,
          attempt: trace.attempt,
          client: tracedClient(deps.client, onCall, signal),
          catalog: deps.catalog,
          redis: deps.redis,
          keys: deps.keys,
          logger,
          jobs: deps.jobs,
          note(message, data) {
            trace.notes.push({ at: new Date().toISOString(), message, ...(data ? { data } : {}) });
            spans?.note(message);
            logger.debug({ data }, message);
          },
          settling: (pending, fn) => (spans ? spans.settling(pending, fn) : fn()),
          ...(fromService ? { fromService } : {}),
        };
        const result = await kind.process(record, ctx);
        await writeTrace({ result });
        // Both rows of refusals end with a synced job, at once rather than one round trip after the other.
        await Promise.all([
          opts.breaker &&
            recordSuccess(deps.redis, deps.keys, kind.stream).catch((err: Error) => couldNot(logger, 'reset the breaker count', err)),
          opts.outage && recordServiceUp(deps.redis, deps.keys).catch((err: Error) => couldNot(logger, 'reset the outage count', err)),
        ]);
        spans?.end(result.outcome);
        logger.info({ outcome: result.outcome, attempt: trace.attempt, ms: trace.ms, calls: trace.calls.length }, result.summary);
        return result;
      } finally {
        await lock.release();
      }
    } catch (err) {
      if (err instanceof DelayedError) {
        spans?.end('delayed');
        throw err;
      }
      const failure = classifyFailure(err);
      spans?.end(
        failure.action === 'hold' ? 'held' : failure.action === 'retry' && trace.attempt < (job.opts.attempts ?? 1) ? 'retry' : 'failed',
        failure.code,
      );
      const { action, resetAt, group, refusal, ...shown } = failure;
      await writeTrace({ error: shown });
      const brake = opts.breaker ? { redis: deps.redis, keys: deps.keys, stream: kind.stream, logger, hooks: opts.breaker } : undefined;
      // The service down for everything: every stream holds instead of spending attempts (src/queue/outage-hold.ts).
      if (
        opts.outage &&
        failure.refusal === 'service-down' &&
        (await holdForOutage(job, token, failure, { redis: deps.redis, keys: deps.keys, stream: kind.stream, logger, hooks: opts.outage }))
      )
        throw new DelayedError();
      return await settle(job, token, failure, logger, deps.redis, opts, brake);
    }
  };
}

/** Logs the failure with what to do, then throws what steers BullMQ. Never returns. */
async function settle(
  job: Job,
  token: string | undefined,
  f: Failure,
  logger: Logger,
  redis: Redis,
  opts: ProcessorOptions,
  brake?: HoldContext,
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
  // A refusal about the account, not the record: the job waits (no attempt spent) while the breaker counts.
  // The service down counts here only when no outage hold takes it (src/queue/outage-hold.ts).
  if (brake && countsForBreaker(f, attempt >= attempts, !!opts.outage) && (await holdForBreaker(job, token, f, brake)))
    throw new DelayedError();
  // The job fails (for good or this attempt): its group goes beside the failedReason BullMQ writes next.
  await recordFailureGroup(redis, job, f.group).catch((err: Error) => couldNot(logger, 'record the failure group', err));
  if (f.action === 'fail') {
    logger.error({ code: f.code, attempt, hint: f.hint }, `job failed for good: ${reason}. ${f.hint}`);
    throw withFailureCode(new UnrecoverableError(reason), f.code);
  }
  if (attempt >= attempts)
    logger.error({ code: f.code, attempt, attempts, hint: f.hint }, `job failed after ${attempts} attempts: ${reason}. ${f.hint}`);
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

/** A bookkeeping write that failed (Redis full or away): the job goes on; logged once per reason every 30 s. */
function couldNot(logger: Logger, what: string, err: Error): void {
  logRepeated(logger, 'warn', `${what}:${reasonOf(err)}`, { err: err.message }, `could not ${what}`);
}
