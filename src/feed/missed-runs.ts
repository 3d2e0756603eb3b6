import { CronExpressionParser } from 'cron-parser';
import type { PullSchedule } from '../records/stream-name.js';
import { nextTickAt } from './due-times.js';

/**
 * Which scheduled pull fell due and did not fetch (held, Redis away, refused writes, a failed pull, no worker running
 * at its time, or a process that died mid-pull), as anacron and systemd's `Persistent=true` timers find a job missed
 * while the machine was off: from what the schedule hash keeps of each scheduler (`{scheduler}.fetchedAt`: when the
 * last pull that fetched began; `{scheduler}.since`: when the schedule was first kept) and the schedule itself. A pull
 * covers every slot before it began, so missed slots are made up by one pull, not one per slot (make-up.ts runs it).
 */

/** Why a run did not fetch, kept with the slot it served (`{scheduler}.missed`). */
export type MissedCause = 'outage' | 'paused' | 'failed' | 'stopped';

/** What a person reads: "after an outage of the service". */
export const CAUSE_TEXT: Record<MissedCause, string> = {
  outage: 'an outage of the service',
  paused: 'a pause of the stream (the account refused)',
  failed: 'a failed pull (the feed or Redis away)',
  stopped: 'a stop (no worker took it: none ran, or Redis was away)',
};

/** A run that fell due and did not fetch: its slot and why. */
export interface MissedRun {
  dueAt: number;
  cause: MissedCause;
}

/** A slot after which a run is owed, if it is older than this (a run due now is the scheduler's own to run), in ms. */
export const GRACE_MS = 5_000;

/** The last slot of a cron at or before `now` (epoch ms). */
function lastCronSlot(pattern: string, tz: string | undefined, now: number): number {
  const cron = CronExpressionParser.parse(pattern, { currentDate: new Date(now + 1), ...(tz ? { tz } : {}) });
  return cron.prev().getTime();
}

/**
 * The slot owed a run now, if any: a cron's last fire that no pull covers, or, for an interval, the slot after the last
 * pull that fetched once a whole interval has passed without one; and whether it is past the catch-up window.
 */
export function owedSlot(
  schedule: PullSchedule,
  /** The stream's member of the due set, whose interval slots it has (due-times.ts). */
  member: string,
  kept: { fetchedAt?: number; since?: number },
  now: number,
): number | undefined {
  const covered = Math.max(kept.fetchedAt ?? 0, kept.since ?? now);
  if ('every' in schedule) {
    const everyMs = Math.round(schedule.every * 1000);
    if (now - covered <= everyMs + GRACE_MS) return undefined;
    // The first slot after the last cover: the one that should have fetched.
    return nextTickAt(member, everyMs, covered).getTime();
  }
  const slot = lastCronSlot(schedule.pattern, schedule.tz, now);
  return slot > covered && now - slot >= GRACE_MS ? slot : undefined;
}

/** Why the owed slot was missed: what the run that served it said, else no run took it. */
export function causeOf(slot: number, missed: MissedRun | undefined): MissedCause {
  return missed && missed.dueAt >= slot ? missed.cause : 'stopped';
}

/** A JSON field of the schedule hash (`{scheduler}.missed`, `.madeUp`), or undefined when absent or unreadable. */
export function jsonField<T>(v: string | undefined): T | undefined {
  try {
    return v ? (JSON.parse(v) as T) : undefined;
  } catch {
    return undefined;
  }
}
