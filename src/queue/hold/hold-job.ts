import type { Job } from 'bullmq';
import { defaults } from '../../../config/defaults.js';
import type { Logger } from '../../log/logger.js';
import type { RedisConnection as Redis, RedisKeys } from '../../redis/connection.js';
import { logRepeated } from '../../log/log-throttle.js';
import type { Failure } from '../failure.js';
import type { JobHoldCause } from './hold.js';
import { isOutage } from './outage-state.js';
import { recordRefusal, recordRepeat } from './refusal-state.js';

/** What the runner needs to hold a stream for refusals (worker-pool.ts gives it). */
export interface RefusalHooks {
  /** Refusals about the account in a row, across every process, that hold the stream (BREAKER_THRESHOLD). */
  threshold: number;
  /** Pauses the stream's queue in every process (BullMQ queue pause); called again by later refusals, harmlessly. */
  pause(): Promise<void>;
  /** Delays of a job put back while the stream runs, in ms: the first, doubling up to the max. */
  retryDelayMs?: number;
  retryMaxDelayMs?: number;
  /** How soon a job refused while held is due again, in ms (it then waits in the paused queue). */
  holdMs?: number;
  /** Called in the process whose refusal held the stream (e.g. to alert now rather than at the next look). */
  onTrip?(stream: string): void;
}

/** What the runner needs to hold every stream while the service is down (worker-pool.ts gives it). */
export interface OutageHooks {
  /** Pauses the record queues of this process's streams (every process's look pauses its own within a second). */
  holdAll(): Promise<void>;
  /** How soon a job that met the outage is due again, in ms (it then waits in its paused queue). */
  holdMs?: number;
}

/** The hooks of each cause a job can meet; a cause without hooks holds nothing (its failures settle job by job). */
export interface HoldHooks {
  refusals?: RefusalHooks;
  outage?: OutageHooks;
}

export interface HoldJobContext {
  redis: Redis;
  keys: RedisKeys;
  stream: string;
  logger: Logger;
  hooks: HoldHooks;
}

/**
 * Counts the failure toward its cause's hold (hold.ts). Held already, or held by this one: the stream's queue (every
 * queue, for the outage) pauses and the job goes back to wait with its progress and no attempt spent. Still running:
 * an account refusal brings the job back after a growing delay, at most `threshold` times (so a refusal that only one
 * record meets, while others sync, still ends); the service down and a repeated refusal settle as before.
 * Answers true when the job was moved to delayed (throw DelayedError), false when it is to be settled as before.
 */
export async function holdJob(job: Job, token: string | undefined, f: Failure, cause: JobHoldCause, c: HoldJobContext): Promise<boolean> {
  const reason = `[${f.code}] ${f.message}`;
  const jobId = String(job.id);
  const { refusals, outage } = c.hooks;
  if (cause === 'outage') {
    // The outage is opened by the watch (a held call whose read probe finds the rest down too: hold-watch.ts); a job
    // that meets the service down meanwhile waits in its paused queue, no attempt spent.
    if (!outage || !(await isOutage(c.redis, c.keys))) return false;
    await outage.holdAll();
    c.logger.debug({ code: f.code }, `${reason} during the outage; the job waits, no attempt spent`);
    await job.moveToDelayed(Date.now() + (outage.holdMs ?? defaults.breakerHoldMs), token);
    return true;
  }
  if (!refusals) return false;
  const { threshold } = refusals;
  const r =
    f.refusal === 'repeated' && f.signature
      ? await recordRepeat(c.redis, c.keys, c.stream, { threshold, code: f.code, reason, jobId, signature: f.signature })
      : await recordRefusal(c.redis, c.keys, c.stream, { threshold, code: f.code, reason, jobId });
  if (r.state === 'tripped' || r.state === 'open') {
    await refusals.pause();
    if (r.state === 'tripped') {
      refusals.onTrip?.(c.stream);
      const what = 'refusals' in r ? `${r.refusals} refusals about the account` : `the same refusal from the service ${r.same} times`;
      c.logger.error(
        { code: f.code, refusals: 'refusals' in r ? r.refusals : r.same, hint: f.hint },
        `stream ${c.stream} paused: ${what} in a row, the last ${reason}. ${f.hint} ` +
          `No job of the stream runs and none is lost; after the fix: inventory-sync resume --stream ${c.stream}`,
      );
    } else
      logRepeated(
        c.logger,
        'warn',
        `paused:${c.stream}:${f.code}`,
        { code: f.code },
        `${reason}; the stream is paused: the job waits for inventory-sync resume --stream ${c.stream}; no attempt spent`,
      );
    await job.moveToDelayed(Date.now() + (refusals.holdMs ?? defaults.breakerHoldMs), token);
    return true;
  }
  // The service down past a job's retries (about an hour) fails the job as before unless the stream is held; so does
  // a refusal that may be the record's own until it has come the same for `threshold` records (resume retries those).
  if (!('pushbacks' in r) || f.refusal === 'service-down' || r.pushbacks > threshold) return false;
  const base = refusals.retryDelayMs ?? defaults.breakerRetryDelayMs;
  const delay = Math.min(base * 2 ** (r.pushbacks - 1), refusals.retryMaxDelayMs ?? defaults.breakerRetryMaxDelayMs);
  logRepeated(
    c.logger,
    'warn',
    `pushback:${c.stream}:${f.code}`,
    { code: f.code, refusals: r.refusals, threshold, pushbacks: r.pushbacks, delayMs: delay },
    `${reason}; refusal ${r.refusals} of ${threshold} in a row before the stream pauses; ` +
      `the job runs again in ${delay} ms; no attempt spent`,
  );
  await job.moveToDelayed(Date.now() + delay + Math.floor(Math.random() * delay * 0.5), token);
  return true;
}
