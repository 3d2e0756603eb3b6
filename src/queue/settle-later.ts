import { DelayedError, type Job } from 'bullmq';
import type { JobAttempt } from './job-attempt.js';

/**
 * A write whose answer was lost and that the service does not show yet, while it may still apply it (a request held
 * behind a gateway lands late): the job reads again at `until`, with its progress and no attempt spent, rather than
 * taking the write as not applied and sending it a second time.
 */
export class SettleLaterError extends Error {
  constructor(
    /** When to read again, ms since the epoch. */
    readonly until: number,
    message: string,
  ) {
    super(message);
    this.name = 'SettleLaterError';
  }
}

/** Throws SettleLaterError while `lateMs` has not passed since `lostAt` (a dry run, without `lateMs`, never waits). */
export function settleLaterUnlessPast(lostAt: number, lateMs: number | undefined, what: string): void {
  const until = lostAt + (lateMs ?? 0);
  const left = until - Date.now();
  if (left <= 0) return;
  throw new SettleLaterError(
    until,
    `${what}: the service does not have it yet, and may still apply it (its answer was lost); read again in ${left} ms`,
  );
}

/** The job moved to delayed until the read; throws DelayedError, as BullMQ wants of a job moved so. */
export async function settleLater(job: Job, token: string | undefined, attempt: JobAttempt, err: SettleLaterError): Promise<never> {
  attempt.spans?.end('delayed');
  attempt.note(err.message);
  await attempt.writeTrace({});
  attempt.logger.debug({ until: new Date(err.until).toISOString() }, `${err.message}; no attempt spent`);
  await job.moveToDelayed(err.until, token);
  throw new DelayedError();
}
