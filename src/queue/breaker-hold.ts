import type { Job } from 'bullmq';
import { defaults } from '../../config/defaults.js';
import type { Logger } from '../log/logger.js';
import type { RedisConnection as Redis, RedisKeys } from '../redis/connection.js';
import type { Failure } from './failure.js';
import { recordRefusal, recordRepeat } from './stream-breaker.js';
import { logRepeated } from '../log/log-throttle.js';

/** What the runner needs to brake a stream (worker-pool.ts gives it). */
export interface BreakerHooks {
  /** Refusals about the account in a row, across every process, that pause the stream (BREAKER_THRESHOLD). */
  threshold: number;
  /** Pauses the stream's queue in every process (BullMQ queue pause); called again by later refusals, harmlessly. */
  pause(): Promise<void>;
  /** Delays of a job put back while the breaker is closed, in ms: the first, doubling up to the max. */
  retryDelayMs?: number;
  retryMaxDelayMs?: number;
  /** How soon a job refused while paused is due again, in ms (it then waits in the paused queue). */
  holdMs?: number;
  /** Called in the process whose refusal paused the stream (e.g. to alert now rather than at the next look). */
  onTrip?(stream: string): void;
}

export interface HoldContext {
  redis: Redis;
  keys: RedisKeys;
  stream: string;
  logger: Logger;
  hooks: BreakerHooks;
}

/**
 * Whether a failure counts toward the breaker: a refusal about the account (401, a 403 that is not "the order is
 * completed"), or the service down on the job's last attempt (its retries spent). Bad records, 429s (held by the
 * budget), record refusals (400, 404, conflicts), Redis and internal errors never count; nor does the service down when
 * the outage hold takes it (`outageHold`: every stream then holds and probes, src/queue/outage-hold.ts).
 */
export function countsForBreaker(f: Failure, lastAttempt: boolean, outageHold = false): boolean {
  return f.refusal === 'account' || f.refusal === 'repeated' || (f.refusal === 'service-down' && lastAttempt && !outageHold);
}

/**
 * Counts an account refusal and puts the job back to wait without spending an attempt, so that no order is lost to
 * a refusal every job meets alike: while the stream is paused (or this refusal paused it) the job waits for the
 * resume; while the breaker is closed a 401/403 brings it back after a growing delay, at most `threshold` times,
 * after which it is settled as any failure (so a refusal that only one record meets, while others sync, still
 * ends), and the service down past its retries settles it at once, as before.
 * Answers false when the job is to be settled as before; true when it was moved to delayed (throw DelayedError).
 */
export async function holdForBreaker(job: Job, token: string | undefined, f: Failure, c: HoldContext): Promise<boolean> {
  const reason = `[${f.code}] ${f.message}`;
  const r =
    f.refusal === 'repeated' && f.signature
      ? await recordRepeat(c.redis, c.keys, c.stream, {
          threshold: c.hooks.threshold,
          code: f.code,
          reason,
          jobId: String(job.id),
          signature: f.signature,
        })
      : await recordRefusal(c.redis, c.keys, c.stream, { threshold: c.hooks.threshold, code: f.code, reason, jobId: String(job.id) });
  const now = Date.now();
  if (r.state === 'tripped' || r.state === 'open') {
    await c.hooks.pause();
    if (r.state === 'tripped') {
      c.hooks.onTrip?.(c.stream);
      c.logger.error(
        { code: f.code, refusals: 'refusals' in r ? r.refusals : r.same, hint: f.hint },
        `stream ${c.stream} paused: ` +
          `${'refusals' in r ? `${r.refusals} refusals about the account` : `the same refusal from the service ${r.same} times`} ` +
          `in a row, the last ${reason}. ${f.hint} ` +
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
    await job.moveToDelayed(now + (c.hooks.holdMs ?? defaults.breakerHoldMs), token);
    return true;
  }
  // The service down past a job's retries (about an hour) fails the job as before unless the stream is paused; so does
  // a refusal that may be the record's own until it has come the same for `threshold` records (resume retries those).
  if (!('pushbacks' in r) || f.refusal === 'service-down' || r.pushbacks > c.hooks.threshold) return false;
  const base = c.hooks.retryDelayMs ?? defaults.breakerRetryDelayMs;
  const delay = Math.min(base * 2 ** (r.pushbacks - 1), c.hooks.retryMaxDelayMs ?? defaults.breakerRetryMaxDelayMs);
  logRepeated(
    c.logger,
    'warn',
    `pushback:${c.stream}:${f.code}`,
    { code: f.code, refusals: r.refusals, threshold: c.hooks.threshold, pushbacks: r.pushbacks, delayMs: delay },
    `${reason}; refusal ${r.refusals} of ${c.hooks.threshold} in a row before the stream pauses; ` +
      `the job runs again in ${delay} ms; no attempt spent`,
  );
  await job.moveToDelayed(now + delay + Math.floor(Math.random() * delay * 0.5), token);
  return true;
}
