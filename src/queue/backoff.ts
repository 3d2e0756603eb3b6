import type { BackoffStrategy } from 'bullmq';

/** Name of the custom backoff in job options; the worker's `settings.backoffStrategy` implements it. */
export const JITTERED = 'jittered';

export interface JitteredBackoffOptions {
  /** Delay before the first retry, in ms; doubles each attempt. */
  baseDelayMs: number;
  /** Longest delay, in ms. */
  maxDelayMs: number;
  /** `equal`: between half and all of the exponential delay; `full`: between 0 and all of it. Default `equal`. */
  jitter?: 'equal' | 'full';
  /** Source of randomness in [0, 1); for tests. Default Math.random. */
  random?: () => number;
}

/** The delay before retry number `attemptsMade` (1 = first retry): exponential, capped, jittered. */
export function retryDelay(attemptsMade: number, opts: JitteredBackoffOptions): number {
  const random = opts.random ?? Math.random;
  const exponent = Math.max(0, attemptsMade - 1);
  // 2 ** exponent overflows to Infinity harmlessly before Math.min caps it.
  const ceiling = Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** exponent);
  const delay = opts.jitter === 'full' ? random() * ceiling : ceiling / 2 + (random() * ceiling) / 2;
  return Math.max(1, Math.round(delay));
}

/**
 * BullMQ 6 `settings.backoffStrategy`: (attemptsMade, type, err, job) => ms. It is called only for
 * types that are not built in, i.e. for `{ type: 'jittered' }`.
 */
export function jitteredBackoff(opts: JitteredBackoffOptions): BackoffStrategy {
  return (attemptsMade) => retryDelay(attemptsMade, opts);
}
