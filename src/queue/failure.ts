import { isServiceError } from '../client/answers/errors.js';
import { HINTS } from '../errors/error-hints.js';
import { isNetworkCode } from '../net/network-codes.js';
import { findRedisFailure } from '../redis/errors.js';
import { PermanentJobError } from './job-errors.js';

/** What the runner does with an error: fail the job now, retry it with backoff, or hold the queue. */
export interface Failure {
  action: 'fail' | 'retry' | 'hold';
  /** ServiceErrorCode, PermanentCode, REDIS, TRANSIENT or INTERNAL: the `[CODE]` of failedReason. */
  code: string;
  name: string;
  message: string;
  /** The subject-free reason the failure shares with others of its cause (src/queue/failure-group.ts). */
  group: string;
  hint: string;
  retryable: boolean;
  /** False when retrying the job after any fix cannot help (a record wrong in itself: only a corrected record can). */
  retryHelps?: boolean;
  /** For service writes: whether the request may have been applied. */
  outcome?: string;
  /** For RATE_LIMITED: epoch ms when the service may be used again. */
  resetAt?: number;
  /**
   * A service refusal that is about the account, not the record (the hold's causes, src/queue/hold/hold.ts): `account`
   * for 401 and a 403 that is not "the order is completed", `service-down` for the service unreachable or answering 5xx
   * (the cause `outage`, or `refusals` once the job's retries are spent on a worker without the outage's probe).
   */
  refusal?: 'account' | 'service-down' | 'repeated';
  /**
   * For a refusal the service may give every record alike (`repeated`: a non-retryable answer with the service's own
   * message): what two such refusals share when they are the same one (the step, the code, the service's `msg`).
   */
  signature?: string;
}

/** Service error codes that refuse the credentials or the account, whatever the record. */
const ACCOUNT_CODES = new Set(['UNAUTHORIZED', 'FORBIDDEN']);

/** Error codes of passing trouble besides the network's (locks held too long) that a later attempt can get past. */
const LOCK_CODES = new Set(['LOCK_TIMEOUT', 'LOCK_LOST']);

/**
 * A job's own refusal that wraps the service's answer (`SERVICE_REFUSED`, with the step, code and `msg` in its
 * details): the same text for record after record says it is about the account, not the records.
 */
function repeatable(err: PermanentJobError): Pick<Failure, 'refusal' | 'signature'> {
  const d = err.details;
  if (err.code !== 'SERVICE_REFUSED' || typeof d?.msg !== 'string' || !d.msg) return {};
  return { refusal: 'repeated', signature: `${String(d.step ?? '')}|${String(d.code ?? '')}|${d.msg}` };
}

/** Sorts an error thrown by a job into fail / retry / hold, by class and code (never by message text). */
export function classifyFailure(err: unknown): Failure {
  const e = err instanceof Error ? err : new Error(String(err));
  if (err instanceof PermanentJobError) {
    const base = {
      action: 'fail',
      code: err.code,
      name: err.name,
      message: err.message,
      group: err.groupReason,
      hint: err.hint,
      retryable: err.retryable,
      retryHelps: err.retryHelps,
    } as const;
    return { ...base, ...repeatable(err) };
  }
  // A Redis failure (even under a service error: the budget is in Redis) is Redis's, whatever the job was doing.
  const redis = findRedisFailure(err);
  if (redis) {
    const outcome = isServiceError(err) ? err.outcome : undefined;
    return {
      action: 'retry',
      code: 'REDIS',
      name: e.name,
      message: e.message,
      group: e.message,
      hint: redis.hint,
      retryable: true,
      ...(outcome ? { outcome } : {}),
    };
  }
  if (isServiceError(err)) {
    const base = {
      code: err.code,
      name: err.name,
      message: err.message,
      group: err.groupReason,
      hint: err.hint,
      retryable: err.retryable,
      outcome: err.outcome,
      // This program's own refusal of a path: the same path is refused again however often the job is retried.
      ...(err.code === 'NOT_FOLLOWED' ? { retryHelps: false } : {}),
    };
    if (err.code === 'RATE_LIMITED') return { ...base, action: 'hold', resetAt: err.resetAt };
    if (ACCOUNT_CODES.has(err.code)) return { ...base, action: err.retryable ? 'retry' : 'fail', refusal: 'account' };
    if (err.code === 'TRANSIENT') return { ...base, action: err.retryable ? 'retry' : 'fail', refusal: 'service-down' };
    const same =
      !err.retryable && err.code !== 'ORDER_COMPLETED' && err.msg
        ? { refusal: 'repeated' as const, signature: `${err.code}|${err.status ?? ''}|${err.msg}` }
        : {};
    return { ...base, action: err.retryable ? 'retry' : 'fail', ...same };
  }
  const code = (e as { code?: unknown }).code;
  const transient =
    isNetworkCode(code) || (typeof code === 'string' && LOCK_CODES.has(code)) || (e as { retryable?: unknown }).retryable === true;
  return transient
    ? { action: 'retry', code: 'TRANSIENT', name: e.name, message: e.message, group: e.message, hint: HINTS.TRANSIENT, retryable: true }
    : { action: 'retry', code: 'INTERNAL', name: e.name, message: e.message, group: e.message, hint: HINTS.INTERNAL, retryable: true };
}
