import { DelayedError, type Job } from 'bullmq';
import { couldNot, type JobAttempt } from '../job-attempt.js';
import type { RunnerDeps } from '../job-context.js';
import { MissingReferenceError } from '../job-errors.js';
import { hsetIfExists } from '../../redis/hset-if-exists.js';
import { dropWait, noteWait } from './wait-store.js';
import { refWords } from './reference.js';

/** What the runner needs to make a record wait for what it names and the service lacks (worker-pool.ts gives it). */
export interface WaitHooks {
  /** How long a record may wait before it fails for good, in ms (WAIT_FOR_REFERENCE_HOURS). */
  boundMs: number;
  /** Asks this process's look at the catalog to come soon (the first wait of a reference). */
  lookSoon?: () => void;
}

/** The field of the job's hash that keeps when it began to wait, across its waits (gone with the job). */
export const WAIT_SINCE_FIELD = 'waitSince';

/** The words of a wait: `product MUG-ORANGE, facility X`. */
export function waitWords(err: MissingReferenceError): string {
  return err.refs.map(refWords).join(', ');
}

/**
 * A record that names what the service lacks waits for it: its job is delayed until the bound (no attempt spent, the
 * queue goes on) and kept with what it waits for, so the look at the catalog (wait-look.ts) promotes it once the
 * reference exists. Past the bound, counted from its first wait, the error comes back with the reason, and the job fails
 * for good. Throws DelayedError, as BullMQ wants of a job moved to delayed.
 */
export async function waitForReference(
  job: Job,
  token: string | undefined,
  err: MissingReferenceError,
  h: { attempt: JobAttempt; stream: string; deps: Pick<RunnerDeps, 'redis' | 'keys'>; hooks: WaitHooks },
): Promise<MissingReferenceError> {
  const { redis, keys } = h.deps;
  const jobKey = `${job.queueQualifiedName}:${job.id}`;
  const now = Date.now();
  const stored = Number(await redis.hget(jobKey, WAIT_SINCE_FIELD));
  const since = stored > 0 ? stored : now;
  if (!(stored > 0)) await hsetIfExists(redis, jobKey, WAIT_SINCE_FIELD, String(now));
  const what = waitWords(err);
  if (now - since >= h.hooks.boundMs) {
    const hours = Math.round((h.hooks.boundMs / 3_600_000) * 10) / 10;
    const waited = `; waited for ${what} since ${new Date(since).toISOString()}, longer than WAIT_FOR_REFERENCE_HOURS (${hours})`;
    await dropWait(redis, keys, h.stream, String(job.id)).catch((e: Error) => couldNot(h.attempt.logger, 'forget the wait', e));
    return new MissingReferenceError(err.recordId, err.field, err.reason + waited, err.refs);
  }
  h.attempt.spans?.end('delayed', 'WAITING');
  h.attempt.note(`waits for ${what} (the service lacks it); goes on by itself once it exists`);
  await h.attempt.writeTrace({
    error: { code: 'WAITING', name: err.name, message: err.message, hint: WAIT_HINT, retryable: true, outcome: 'not-applied' },
  });
  // Woken by the look when the reference exists; else it runs at its bound, and fails for good then. Delayed before it
  // is noted, so that a look that takes the note finds it delayed, and can promote it.
  await job.moveToDelayed(since + h.hooks.boundMs + 1000, token);
  await noteWait(redis, keys, h.stream, String(job.id), { refs: err.refs, since }).catch((e: Error) =>
    couldNot(h.attempt.logger, 'note the record as waiting', e),
  );
  h.hooks.lookSoon?.();
  h.attempt.logger.info({ code: 'WAITING', waitsFor: what }, `record waits for ${what}, which the service lacks; no attempt spent`);
  throw new DelayedError();
}

/** What to do about a waiting record. */
export const WAIT_HINT =
  'Nothing, if the product or facility is on its way: the record waits (no attempt spent) and syncs by itself within ' +
  'WAIT_LOOK_SECONDS of it existing in the service or in MAPPING_FILE. Add it now and `inventory-sync catalog refresh` ' +
  'releases it at once; past WAIT_FOR_REFERENCE_HOURS it fails for good (docs/runbooks/bad-records.md).';
