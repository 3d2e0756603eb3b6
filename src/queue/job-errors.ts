import { HINTS, RECORD_HINT } from '../errors/error-hints.js';
import type { Reference } from './wait/reference.js';

/**
 * Codes of the errors a job throws when retrying cannot help: the engine's own, and those a kind declares with their
 * hints (its `failures`). The runner fails the job at once with the message.
 */
export type PermanentCode = 'BAD_RECORD' | 'CONFLICT' | 'ORDER_COMPLETED' | 'SERVICE_REFUSED' | (string & {});

export class PermanentJobError extends Error {
  /** No retry can help: the job fails at once (the failure contract every error class states). */
  readonly retryable = false;

  constructor(
    readonly code: PermanentCode,
    message: string,
    /** What to do about it, for the operator. */
    readonly hint: string,
    readonly details?: Record<string, unknown>,
    /** What it shares with others of its cause, when the message names its subject (`order W-1: ...`). */
    private readonly group?: string,
  ) {
    super(message);
    this.name = 'PermanentJobError';
  }

  /** What this failure shares with others of its cause (failure groups): the message, unless it names a subject. */
  get groupReason(): string {
    return this.group ?? this.message;
  }

  /** Whether retrying the job once its cause is fixed can help (a missing product added, a setting changed): yes by default. */
  get retryHelps(): boolean {
    return true;
  }
}

/** A record that does not match its shape or names something the service does not have. */
export class BadRecordError extends PermanentJobError {
  constructor(
    readonly recordId: string,
    readonly field: string,
    readonly reason: string,
    hint: string = HINTS.BAD_RECORD,
  ) {
    super('BAD_RECORD', `record ${recordId}: ${field}: ${reason}`, hint, { recordId, field, reason });
    this.name = 'BadRecordError';
  }

  /** Bad records of one cause group together, whatever their ids (which may hold colons). */
  override get groupReason(): string {
    return `${this.field}: ${this.reason}`;
  }

  /** A record wrong in itself (RECORD_HINT: its shape, a field, a line) stays wrong however often it is retried. */
  override get retryHelps(): boolean {
    return this.hint !== RECORD_HINT;
  }
}

/**
 * A record that names products or facilities the service lacks, and nothing else wrong: under a worker it waits for
 * them (src/queue/wait/), no attempt spent, and goes through once they exist; otherwise it fails as a bad record.
 */
export class MissingReferenceError extends BadRecordError {
  constructor(
    recordId: string,
    field: string,
    reason: string,
    /** Everything the record names that the service lacks. */
    readonly refs: Reference[],
  ) {
    super(recordId, field, reason);
    this.name = 'MissingReferenceError';
  }
}

/** What the service already has differs from the record, and the record cannot be applied over it. */
export class ConflictError extends PermanentJobError {
  constructor(message: string, hint: string, details?: Record<string, unknown>, group?: string) {
    super('CONFLICT', message, hint, details, group);
    this.name = 'ConflictError';
  }
}
