import type { Config } from '../../config/read-config.js';
import { defaults } from '../../config/defaults.js';
import { isOutage } from '../queue/hold/outage-state.js';
import { isPaused } from '../queue/hold/refusal-state.js';
import { shortDateTime } from '../time/date-format.js';
import { CAUSE_TEXT, causeOf, jsonField, owedSlot, type MissedRun } from './missed-runs.js';
import { pullScheduleOf, type PulledKind } from './pulled-kind.js';
import { recordSchedule, runScheduledPull, type ScheduledPullDeps } from './scheduled-pull.js';
import { quietRunAt } from './schedule-info.js';

export interface MakeUpOptions extends ScheduledPullDeps {
  schedule: Config['schedule'];
  /** How old a missed slot may be and still be made up, in ms (SCHEDULE_CATCH_UP_SECONDS); 0: never. */
  catchUpMs: number;
  /** How soon a look comes again while the slot's cause lasts, in ms. Default defaults.makeUpLookMs. */
  lookMs?: number;
}

const at = (ms: number) => `${shortDateTime(new Date(ms).toISOString())} UTC`;
const num = (v: string | undefined) => (v === undefined ? undefined : Number(v));

/** A failed make-up is tried again after this long, doubled each time up to the longest, in ms. */
const RETRY_FIRST_MS = 10_000;
const RETRY_MAX_MS = 5 * 60_000;

/** A stream's make-up look (`look`), with the delay of its failed make-ups (`failures`). */
export interface MakeUp {
  /** Looks once; answers when to look again (the slot's cause lasts), or undefined (nothing owed now). */
  look(kind: PulledKind, member: string, nextRunAt: () => Promise<Date | undefined>, signal: AbortSignal): Promise<number | undefined>;
}

/**
 * A stream's look for a scheduled pull that fell due and did not fetch (missed-runs.ts), run from the due set
 * (src/feed/control.ts): when a worker starts, and after a run that did not fetch, until nothing is owed. An owed slot
 * of a stream that is not held now is made up by one pull (the due set's claim: once across every process) and
 * recorded as made up with why it was missed. A slot older than the catch-up window is not made up: said once, and
 * kept for status.
 */
export function makeUps(o: MakeUpOptions): MakeUp {
  const lookMs = o.lookMs ?? defaults.makeUpLookMs;
  const retryAt = new Map<string, number>();

  const tooOld = async (kind: PulledKind, slot: number, missed: MissedRun | undefined, told: MissedRun | undefined): Promise<undefined> => {
    const cause = causeOf(slot, missed);
    if (told?.dueAt === slot) return undefined;
    await recordSchedule(o, kind.feed.scheduler, { notMadeUp: JSON.stringify({ dueAt: slot, cause }) });
    o.logger
      .child({ scheduler: kind.feed.scheduler, stream: kind.stream })
      .warn(
        { dueAt: new Date(slot).toISOString(), cause },
        `the ${at(slot)} run of ${kind.stream} was missed (${CAUSE_TEXT[cause]}) and is older than SCHEDULE_CATCH_UP_SECONDS ` +
          `(${Math.round(o.catchUpMs / 1000)} s): not made up; the next run is as scheduled ` +
          `(or now: inventory-sync sync --once --stream ${kind.stream})`,
      );
    return undefined;
  };

  return {
    async look(kind, member, nextRunAt, signal) {
      const id = kind.feed.scheduler;
      const [runs, quietAt] = await Promise.all([o.redis.hgetall(o.keys.schedule()), quietRunAt(o.redis, o.keys, kind.stream)]);
      const field = (n: string) => runs[`${id}.${n}`];
      // A quiet poll fetched too (its record is the feed state's: schedule-info.ts).
      const fetchedAt = Math.max(num(field('fetchedAt')) ?? 0, quietAt ?? 0) || undefined;
      const kept = { fetchedAt, since: num(field('since')) };
      const slot = owedSlot(pullScheduleOf(kind, o.schedule), member, kept, Date.now());
      if (slot === undefined) return undefined;
      const missed = jsonField<MissedRun>(field('missed'));
      if (o.catchUpMs <= 0 || Date.now() - slot > o.catchUpMs) return tooOld(kind, slot, missed, jsonField(field('notMadeUp')));
      // Held now: its own hold ends first (the next look after it makes the run up); or a pull of it runs now.
      if ((await isPaused(o.redis, o.keys, kind.stream)) || (await isOutage(o.redis, o.keys))) return Date.now() + lookMs;
      if (await o.redis.exists(o.keys.lock('pull', kind.stream))) return Date.now() + lookMs;
      const cause = causeOf(slot, missed);
      o.logger
        .child({ scheduler: id, stream: kind.stream })
        .info(
          { dueAt: new Date(slot).toISOString(), cause },
          `the ${at(slot)} run of ${kind.stream} was missed after ${CAUSE_TEXT[cause]}; made up now`,
        );
      try {
        await runScheduledPull(o, { scheduler: id, stream: kind.stream, dueAt: slot, madeUp: cause, nextRunAt, signal });
        retryAt.delete(id);
        return undefined;
      } catch (err) {
        if (signal.aborted) throw err;
        // Logged and recorded by the run; tried again later, less and less often.
        const delay = Math.min((retryAt.get(id) ?? RETRY_FIRST_MS / 2) * 2, RETRY_MAX_MS);
        retryAt.set(id, delay);
        return Date.now() + delay;
      }
    },
  };
}

/** Keeps when each scheduler was first seen (once): a slot before it was never owed a run. */
export async function keepScheduleSince(o: Pick<ScheduledPullDeps, 'redis' | 'keys'>, kinds: readonly PulledKind[]): Promise<void> {
  const now = String(Date.now());
  await Promise.all(kinds.map((k) => o.redis.hsetnx(o.keys.schedule(), `${k.feed.scheduler}.since`, now)));
}
