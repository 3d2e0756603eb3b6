import { DelayedError, type Job } from 'bullmq';
import { callScopeLabel } from '../../client/call-scope.js';
import { HINTS } from '../../errors/error-hints.js';
import { messageOf } from '../../errors/message-of.js';
import { couldNot, type JobAttempt } from '../job-attempt.js';
import type { RunnerDeps } from '../job-context.js';
import type { CallHolds } from './call-holds.js';
import { dropHeldJob, noteHeldJob } from './call-held-jobs.js';
import { CallHeldError } from '../../client/answers/errors.js';

/** What the runner needs to hold a job at a held call of the service (worker-pool.ts gives it). */
export interface CallHoldHooks {
  /** This process's side of the calls' holds (call-holds.ts). */
  holds: CallHolds;
  /**
   * How long a job that waits at a held call is delayed besides its wake-up (the call's trial or release), in ms:
   * a little over the longest trial delay, so a lost wake-up costs one more look at the hold, not the job.
   */
  waitMs?: number;
}

interface HeldAt {
  call: string;
  err: unknown;
  attempt: JobAttempt;
  stream: string;
  deps: Pick<RunnerDeps, 'redis' | 'keys'>;
  hooks: CallHoldHooks;
}

/**
 * A job whose next step is a held call waits at that step (its progress kept, no attempt spent): its id is kept with
 * the call's waiting jobs, woken by the call's trial or release (call-held-jobs.ts), and the job is delayed until then.
 * Throws DelayedError, as BullMQ wants of a job moved to delayed.
 */
export async function holdAtCall(job: Job, token: string | undefined, h: HeldAt): Promise<never> {
  const label = callScopeLabel(h.call);
  const sent = !(h.err instanceof CallHeldError);
  const message = sent ? `${messageOf(h.err)}; ${label} is held now: the job waits at this step` : messageOf(h.err);
  const outcome = (h.err as { outcome?: string }).outcome ?? 'not-applied';
  h.attempt.spans?.end('held', 'HELD');
  await h.attempt.writeTrace({
    error: { code: 'HELD', name: 'CallHeldError', message, hint: HINTS.HELD, retryable: true, outcome },
  });
  const jobId = String(job.id);
  await noteHeldJob(h.deps.redis, h.deps.keys, h.call, h.stream, jobId).catch((e: Error) =>
    couldNot(h.attempt.logger, 'note the job as waiting at a held call', e),
  );
  // Released between this job's refusal and its note (the release's wake-up came first): it goes on at once.
  const still = await h.hooks.holds.stillHeld(h.call).catch(() => true);
  if (!still) await dropHeldJob(h.deps.redis, h.deps.keys, h.call, h.stream, jobId).catch(() => undefined);
  const waitMs = still ? (h.hooks.waitMs ?? h.hooks.holds.maxTrialMs * 2) : 0;
  h.attempt.logger.debug({ call: h.call, waitMs }, `${label} is held; the job waits at this step, no attempt spent`);
  await job.moveToDelayed(Date.now() + waitMs + Math.floor(Math.random() * (waitMs * 0.2 + 100)), token);
  throw new DelayedError();
}
