import type { Config } from '../../config/read-config.js';
import { defaults } from '../../config/defaults.js';
import { messageOf } from '../errors/message-of.js';
import { findRedisFailure } from '../redis/errors.js';
import { logRepeated, reasonOf } from '../log/log-throttle.js';
import { isOutage } from '../queue/hold/outage-state.js';
import { isPaused } from '../queue/hold/refusal-state.js';
import { shortDateTime } from '../time/date-format.js';
import { startLooking } from '../time/serial-look.js';
import { CAUSE_TEXT, causeOf, owedSlot, type MissedRun } from './missed-runs.js';
import { pullScheduleOf, type PulledKind } from './scheduler-watchdog.js';
import { recordSchedule, runScheduledPull, type ScheduledPullDeps } from './scheduled-pull.js';
import { jsonField } from './missed-runs.js';

export interface MakeUpOptions extends ScheduledPullDeps {
  schedule: Config['schedule'];
  /** How old a missed slot may be and still be made up, in ms (SCHEDULE_CATCH_UP_SECONDS); 0: never. */
  catchUpMs: number;
  /** A scheduler's next run, for status (as its own runs record it). */
  nextRunAt(kind: PulledKind): Promise<Date | undefined>;
  /** How often to look, in ms. Default defaults.makeUpLookMs. */
  lookMs?: number;
}

const at = (ms: number) => `${shortDateTime(new Date(ms).toISOString())} UTC`;
const num = (v: string | undefined) => (v === undefined ? undefined : Number(v));

/** A failed make-up is tried again after this long, doubled each time up to the longest, in ms. */
const RETRY_FIRST_MS = 10_000;
const RETRY_MAX_MS = 5 * 60_000;

/**
 * Each worker process's look for a scheduled pull that fell due and did not fetch (missed-runs.ts): at start, then
 * every `lookMs`, each owed slot of a stream that is not held now is made up by one pull, once across every process
 * (a claim in Redis), and recorded as made up with why it was missed. A slot older than the catch-up window is not
 * made up: said once, and kept for status.
 */
export function startMakeUp(o: MakeUpOptions): { lookNow(): void; stop(): Promise<void> } {
  const retryAt = new Map<string, { at: number; delay: number }>();

  const makeUp = async (kind: PulledKind, slot: number, missed: MissedRun | undefined, told: MissedRun | undefined) => {
    const id = kind.feed.scheduler;
    const cause = causeOf(slot, missed);
    const log = o.logger.child({ scheduler: id, stream: kind.stream });
    if (o.catchUpMs <= 0 || Date.now() - slot > o.catchUpMs) {
      if (told?.dueAt === slot) return;
      await recordSchedule(o, id, { notMadeUp: JSON.stringify({ dueAt: slot, cause }) });
      log.warn(
        { dueAt: new Date(slot).toISOString(), cause },
        `the ${at(slot)} run of ${kind.stream} was missed (${CAUSE_TEXT[cause]}) and is older than SCHEDULE_CATCH_UP_SECONDS ` +
          `(${Math.round(o.catchUpMs / 1000)} s): not made up; the next run is as scheduled ` +
          `(or now: inventory-sync sync --once --stream ${kind.stream})`,
      );
      return;
    }
    const wait = retryAt.get(id);
    if (wait && Date.now() < wait.at) return;
    // Held now: its own hold ends first (the next look after it makes the run up); or a pull of it runs now.
    if ((await isPaused(o.redis, o.keys, kind.stream)) || (await isOutage(o.redis, o.keys))) return;
    if (await o.redis.exists(o.keys.lock('pull', kind.stream))) return;
    const claim = o.keys.makeUpClaim(id);
    if ((await o.redis.set(claim, String(slot), 'PX', 120_000, 'NX')) !== 'OK') return;
    log.info(
      { dueAt: new Date(slot).toISOString(), cause },
      `the ${at(slot)} run of ${kind.stream} was missed after ${CAUSE_TEXT[cause]}; made up now`,
    );
    try {
      await runScheduledPull(o, { scheduler: id, stream: kind.stream, dueAt: slot, madeUp: cause, nextRunAt: () => o.nextRunAt(kind) });
      retryAt.delete(id);
    } catch {
      // Logged and recorded by the run; tried again later, less and less often.
      const delay = Math.min((wait?.delay ?? RETRY_FIRST_MS / 2) * 2, RETRY_MAX_MS);
      retryAt.set(id, { at: Date.now() + delay, delay });
    } finally {
      await o.redis.del(claim).catch(() => undefined);
    }
  };

  const lookOnce = async () => {
    const runs = await o.redis.hgetall(o.keys.schedule());
    const now = Date.now();
    for (const kind of o.kinds) {
      const field = (n: string) => runs[`${kind.feed.scheduler}.${n}`];
      const kept = { fetchedAt: num(field('fetchedAt')), since: num(field('since')) };
      const slot = owedSlot(pullScheduleOf(kind, o.schedule), o.keys.pullClaim(kind.stream), kept, now);
      if (slot !== undefined) await makeUp(kind, slot, jsonField<MissedRun>(field('missed')), jsonField<MissedRun>(field('notMadeUp')));
    }
  };

  // Redis refusing or away is told once by the worker's write probe: this look says it only at debug.
  const looks = startLooking(lookOnce, o.lookMs ?? defaults.makeUpLookMs, (err) =>
    logRepeated(
      o.logger,
      findRedisFailure(err) ? 'debug' : 'warn',
      `make-up:${reasonOf(err)}`,
      { err: messageOf(err) },
      'could not look for missed scheduled pulls (Redis?); looking again',
    ),
  );
  looks.lookNow();
  return looks;
}

/** Keeps when each scheduler was first seen (once): a slot before it was never owed a run. */
export async function keepScheduleSince(o: Pick<ScheduledPullDeps, 'redis' | 'keys'>, kinds: readonly PulledKind[]): Promise<void> {
  const now = String(Date.now());
  await Promise.all(kinds.map((k) => o.redis.hsetnx(o.keys.schedule(), `${k.feed.scheduler}.since`, now)));
}
