import { HINTS } from '../../errors/error-hints.js';

/**
 * The service client's one error family. Callers branch on `code`, `retryable` and `outcome`,
 * never on message text (only src/client/answers/classify.ts reads the service's `msg`).
 */
export type ServiceErrorCode =
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'DUPLICATE'
  | 'MISSING_REFERENCE'
  | 'INTEGRITY_VIOLATION'
  | 'ORDER_COMPLETED'
  | 'VALIDATION'
  | 'RATE_LIMITED'
  | 'TRANSIENT'
  | 'BAD_RESPONSE'
  | 'NOT_FOLLOWED'
  | 'HELD';

/**
 * What is known of a write's effect on the service:
 * - `not-applied`: surely not applied (refused connection, 4xx, 429, 503 before any work);
 * - `uncertain`: may have been applied (time-out or connection lost after the request was sent, other 5xx);
 * - `applied`: applied, but the answer could not be used (a 200 with an unreadable body).
 * Reads are always `not-applied`.
 */
export type WriteOutcome = 'not-applied' | 'uncertain' | 'applied';

export interface ServiceErrorData {
  method: string;
  /** Path of the request, as sent (never the credentials). */
  path: string;
  status?: number;
  /** The service's message (`msg`, `errorMessage`, or the body text), when it gave one. */
  msg?: string;
  outcome?: WriteOutcome;
  /** For RATE_LIMITED: epoch ms when the class may be used again. */
  resetAt?: number;
  cause?: unknown;
  /** The message without the request's method and path (which name the record): what failures of one cause share. */
  group?: string;
}

export abstract class ServiceError extends Error {
  abstract readonly code: ServiceErrorCode;
  /** Whether trying the same request again later can succeed. */
  abstract readonly retryable: boolean;
  readonly method: string;
  readonly path: string;
  readonly status?: number;
  readonly msg?: string;
  readonly outcome: WriteOutcome;
  readonly resetAt?: number;
  private readonly group?: string;

  constructor(message: string, data: ServiceErrorData) {
    super(message, data.cause === undefined ? undefined : { cause: data.cause });
    this.name = new.target.name;
    this.method = data.method;
    this.path = data.path;
    this.status = data.status;
    this.msg = data.msg;
    this.outcome = data.outcome ?? 'not-applied';
    this.resetAt = data.resetAt;
    this.group = data.group;
  }

  /** What to do about it, for the operator (the one hint table, src/errors/error-hints.ts). */
  get hint(): string {
    return HINTS[this.code];
  }

  /**
   * What this failure shares with others of its cause (failure groups): the message after the request's method and
   * path, which name the record (`POST /acme/api/order/W-1/complete answered 503` and W-2's are one cause), when the
   * error was made with it; else the message.
   */
  get groupReason(): string {
    return this.group ?? this.message;
  }

  /** A plain object for job traces and --json output. */
  toJSON() {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      retryable: this.retryable,
      outcome: this.outcome,
      method: this.method,
      path: this.path,
      status: this.status,
      msg: this.msg,
      resetAt: this.resetAt,
      hint: this.hint,
    };
  }
}

export class UnauthorizedError extends ServiceError {
  readonly code = 'UNAUTHORIZED' as const;
  readonly retryable = false;
}

export class ForbiddenError extends ServiceError {
  readonly code = 'FORBIDDEN' as const;
  readonly retryable = false;
}

export class NotFoundError extends ServiceError {
  readonly code = 'NOT_FOUND' as const;
  readonly retryable = false;
}

export class DuplicateError extends ServiceError {
  readonly code = 'DUPLICATE' as const;
  readonly retryable = false;
}

export class MissingReferenceError extends ServiceError {
  readonly code = 'MISSING_REFERENCE' as const;
  readonly retryable = false;
}

/** The service's integrity message without saying whether a duplicate or a missing reference caused it. */
export class IntegrityViolationError extends ServiceError {
  readonly code = 'INTEGRITY_VIOLATION' as const;
  readonly retryable = false;
}

export class OrderCompletedError extends ServiceError {
  readonly code = 'ORDER_COMPLETED' as const;
  readonly retryable = false;
}

export class ValidationError extends ServiceError {
  readonly code = 'VALIDATION' as const;
  readonly retryable = false;
}

export class RateLimitedError extends ServiceError {
  readonly code = 'RATE_LIMITED' as const;
  readonly retryable = true;
}

export class TransientError extends ServiceError {
  readonly code = 'TRANSIENT' as const;
  readonly retryable = true;
}

/** A 2xx whose body lacks what the step needs (the message names the field and the URL), or is not JSON. */
export class BadResponseError extends ServiceError {
  readonly code = 'BAD_RESPONSE' as const;
  readonly retryable = false;
}

/**
 * Not sent, by this program's choice: the path to follow (from an answer, from Redis, or built from a record's key)
 * would leave the account's API (src/client/api-path.ts). The service was not asked; no retry changes the path.
 */
export class NotFollowedError extends ServiceError {
  readonly code = 'NOT_FOLLOWED' as const;
  readonly retryable = false;
}

/**
 * Not sent: the call is held while it fails (src/queue/hold/call-hold.ts), so the job waits at this step with its
 * progress. Thrown by the hold's layer around a job's client before anything is sent (nothing was applied), never by
 * the client itself; the runner puts the job back without spending an attempt.
 */
export class CallHeldError extends ServiceError {
  readonly code = 'HELD' as const;
  readonly retryable = true;
  /** The held call (`shipment-create`). */
  readonly scope: string;

  constructor(message: string, data: ServiceErrorData & { scope: string }) {
    super(message, { ...data, outcome: 'not-applied' });
    this.scope = data.scope;
  }
}

export function isServiceError(err: unknown): err is ServiceError {
  return err instanceof ServiceError;
}
