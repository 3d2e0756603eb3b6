import type { FeedState } from '../feed/feed-state.js';
import type { FeedPart } from '../feed/feed-kind.js';

/** Seconds since the stream's feed was last caught up; undefined before the first time. What `status` shows. */
export function behindSeconds(f: Pick<FeedState, 'caughtUpAt'>, now: number): number | undefined {
  if (!f.caughtUpAt) return undefined;
  const t = Date.parse(f.caughtUpAt);
  return Number.isNaN(t) ? undefined : Math.max(0, Math.round((now - t) / 1000));
}

/**
 * How long the stream has been falling behind, for alerts: for polled streams the time since they were last caught
 * up; for scheduled ones (a daily cron) only while their latest pull failed or did not catch up (else 0).
 */
export function laggingSeconds(f: FeedState, now: number, lag: FeedPart['lag']): number | undefined {
  const behind = behindSeconds(f, now);
  if (behind === undefined) return undefined;
  const stuck = Boolean(f.lastError) || (f.lastPollAt !== undefined && f.caughtUpAt !== undefined && f.lastPollAt > f.caughtUpAt);
  return lag === 'polled' || stuck ? behind : 0;
}
