import { CronExpressionParser } from 'cron-parser';
import type { PullSchedule } from '../records/stream-name.js';

/**
 * When a scheduled pull is next due. An interval's slots have a phase of their own per member (a hash of its name),
 * so that accounts polling at the same interval spread over it rather than all pull at once; a cron's fires are its
 * pattern's in its time zone (a nightly 19:00 in the account's zone).
 */

/** Where in the interval a key's slots start: the same for every process, spread over keys. */
function slotPhase(key: string, everyMs: number): number {
  let h = 0x811c9dc5; // FNV-1a
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193) >>> 0;
  return h % everyMs;
}

/** The start of the first slot of `key`'s interval after `now`. */
export function nextTickAt(key: string, everyMs: number, now = Date.now()): Date {
  const every = Math.max(1, Math.round(everyMs));
  const into = (((now - slotPhase(key, every)) % every) + every) % every;
  return new Date(now - into + every);
}

/** A cron's next fire after `now` (epoch ms), in its time zone. */
export function nextCronAt(pattern: string, tz: string | undefined, now: number): number {
  return CronExpressionParser.parse(pattern, { currentDate: new Date(now), ...(tz ? { tz } : {}) })
    .next()
    .getTime();
}

/** A schedule's next due time after `now`, for the member `key`. */
export function nextDueAt(key: string, schedule: PullSchedule, now: number): number {
  if ('every' in schedule) return nextTickAt(key, schedule.every * 1000, now).getTime();
  return nextCronAt(schedule.pattern, schedule.tz, now);
}

/** A schedule as one text (the due set keeps it: a changed one re-scores the member). */
export function ruleOf(schedule: PullSchedule): string {
  return 'every' in schedule ? `every ${Math.round(schedule.every * 1000)}` : `cron ${schedule.pattern} ${schedule.tz ?? ''}`.trim();
}
