import { Queue } from 'bullmq';
import type { Config } from '../../config/read-config.js';
import { defaultAccount } from '../../config/accounts.js';
import { defaults } from '../../config/defaults.js';
import type { FeedPage, FetchPageOptions } from './upstream-client.js';
import type { Logger } from '../log/logger.js';
import type { RedisConnection as Redis, RedisKeys } from '../redis/connection.js';
import { CONTROL_QUEUE, type QueueSet } from '../queue/queues.js';
import type { StreamName } from '../records/stream-name.js';
import { pullScheduleOf, type PulledKind } from './pulled-kind.js';
import { recordSchedule, runScheduledPull } from './scheduled-pull.js';
import { keepScheduleSince, makeUps } from './make-up.js';
import { GRACE_MS } from './missed-runs.js';
import { startDueLoop, type DueLoop, type DueRun } from './due-loop.js';
import { dueKey } from './due-set.js';
import { nextDueAt, ruleOf } from './due-times.js';
import { readScheduleInfo, type ScheduleInfo } from './schedule-info.js';
import { eitherSignal } from '../net/either-signal.js';

export type { ScheduleInfo } from './schedule-info.js';

export interface StartControlOptions {
  prefix: string;
  redis: Redis;
  keys: RedisKeys;
  upstream: { fetchPage(stream: StreamName, o: FetchPageOptions): Promise<FeedPage> };
  queues: QueueSet;
  schedule: Config['schedule'];
  /** How old a missed scheduled pull may be and still be made up, in ms (SCHEDULE_CATCH_UP_SECONDS). Default: the default's. */
  catchUpMs?: number;
  /** How soon a pull that did not fetch is looked at again to be made up, in ms (tests). Default defaults.makeUpLookMs. */
  makeUpLookMs?: number;
  pageSize: number;
  logger: Logger;
  /** The streams to schedule, each pulled as its kind says (`pull`, `beforePull`). */
  kinds: readonly PulledKind[];
  /** The process's due loop (one for every account of the process); default: a loop of its own on `prefix`'s due set. */
  due?: DueLoop;
  /** The account's name in the due set's members (`<account>/<stream>`). Default `default`. */
  account?: string;
  /** The pull lock's life, and the lease of a loop of its own, in ms (tests). Default defaults.pullLockTtlMs. */
  pullLockTtlMs?: number;
}

export interface Control {
  scheduleInfo(): Promise<ScheduleInfo[]>;
  /** Stops running the account's schedules (a running pull finishes first, within graceMs); they stay in the due set. */
  close(graceMs?: number): Promise<void>;
  /** Removes the account's schedules from the due set (an account gone from ACCOUNTS_FILE, a test deleting its prefix). */
  removeSchedules(): Promise<void>;
}

/** One stream's schedule in the due set. */
interface DueStream {
  kind: PulledKind;
  member: string;
  schedule: ReturnType<typeof pullScheduleOf>;
}

/**
 * Pulls each stream as its kind says (an interval or a cron in its time zone) through the deployment's due set
 * (src/feed/due-set.ts): the stream's next pull is one member, run by whichever process's loop claims it first.
 * A run that did not fetch (held, failed), a process that died mid-pull, or a slot that fell due while no worker
 * ran, is looked at again by the stream's make-up member (`<account>/<stream>!make-up`) until it is made up.
 */
export async function startControl(o: StartControlOptions): Promise<Control> {
  const account = o.account ?? defaultAccount;
  const own = o.due ? undefined : startDueLoop({ redis: o.redis, key: dueKey(o.prefix), logger: o.logger, leaseMs: o.pullLockTtlMs });
  const due = (o.due ?? own)!;
  const deps = o.pullLockTtlMs ? { ...o, lockTtlMs: o.pullLockTtlMs } : o;
  const lookMs = o.makeUpLookMs ?? defaults.makeUpLookMs;
  const makeUp = makeUps({ ...deps, catchUpMs: o.catchUpMs ?? defaults.scheduleCatchUpSeconds * 1000, lookMs });
  const stop = new AbortController();
  const running = new Set<Promise<unknown>>();
  const streams: DueStream[] = o.kinds.map((kind) => ({
    kind,
    member: `${account}/${kind.stream}`,
    schedule: pullScheduleOf(kind, o.schedule),
  }));
  const members = streams.flatMap((s) => [s.member, `${s.member}!make-up`]);

  const tracked = trackedBy(running, stop.signal);
  const nextOf = (s: DueStream) => async () => new Date(nextDueAt(s.member, s.schedule, Date.now()));
  const lookSoon = (s: DueStream, at: number) =>
    due.add(
      `${s.member}!make-up`,
      at,
      tracked((_claim, signal) =>
        // Redis away or refusing writes: looked at again later (a look that throws would wait for its lease to end).
        makeUp.look(s.kind, s.member, nextOf(s), signal).catch((err: unknown) => {
          if (signal.aborted) throw err;
          return Date.now() + lookMs;
        }),
      ),
    );
  const leaseMs = o.pullLockTtlMs ?? defaults.pullLockTtlMs;
  const lookSurely = (s: DueStream, at: number, signal: AbortSignal) => retrying(() => lookSoon(s, at), leaseMs, signal);
  const pull = (s: DueStream): DueRun =>
    tracked(async (claim, signal) => {
      // Its time passed while no process ran (or one died running it): the make-up look sees whether the slot is owed,
      // within SCHEDULE_CATCH_UP_SECONDS, and runs it as made up (once its pull lock is free).
      if (claim.retaken || Date.now() - claim.slot > GRACE_MS) await lookSurely(s, Math.max(Date.now(), claim.slot + GRACE_MS), signal);
      else {
        const ran = { scheduler: s.kind.feed.scheduler, stream: s.kind.stream, dueAt: claim.slot, nextRunAt: nextOf(s), signal };
        const result = await runScheduledPull(deps, ran).catch((err: unknown) => {
          if (signal.aborted) throw err; // stopped: its lease ends and it is taken again
          return undefined; // logged and recorded
        });
        if (!result || result.paused || result.held) await lookSurely(s, Date.now() + lookMs, signal);
      }
      return nextDueAt(s.member, s.schedule, Date.now());
    });

  await removeReleasedSchedulers(o);
  await keepScheduleSince(o, o.kinds);
  const now = Date.now();
  // An interval's first pull is at once (as a start always pulled); a cron's at its next fire.
  const firstAt = (s: DueStream) => ('every' in s.schedule ? now : nextDueAt(s.member, s.schedule, now));
  await recordRules(o, streams, due.set.key, firstAt);
  await due.register(streams.map((s) => ({ member: s.member, at: firstAt(s), rule: ruleOf(s.schedule), run: pull(s) })));
  // A slot that fell due while no worker ran is looked for at once.
  for (const s of streams) await lookSoon(s, now);

  return {
    scheduleInfo: () => readScheduleInfo(o.redis, o.keys, o.kinds),
    removeSchedules: () => due.set.remove(members),
    async close(graceMs = 10_000) {
      due.forget(members);
      if (await endedWithin(Promise.all([own?.close(graceMs), ...running]), graceMs)) return;
      o.logger.warn(`a scheduled pull did not finish within ${graceMs} ms; it resumes from its cursor next time`);
      stop.abort();
    },
  };
}

/** Wraps an account's runs: each waited for by its close (`running`), and stopped by its `stop` past its grace period. */
function trackedBy(running: Set<Promise<unknown>>, stop: AbortSignal) {
  return (run: DueRun): DueRun =>
    (claim, signal) => {
      const either = eitherSignal([signal, stop]);
      const going = run(claim, either.signal);
      running.add(going);
      void going
        .catch(() => undefined)
        .finally(() => {
          running.delete(going);
          either.release();
        });
      return going;
    };
}

/** Whether `closing` ends within `ms`. */
const endedWithin = (closing: Promise<unknown>, ms: number) =>
  Promise.race([closing.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);

/** A write Redis refuses (full, away) tried again each second, for `ms` at most (a run's lease: it waits on it). */
async function retrying(write: () => Promise<unknown>, ms: number, signal: AbortSignal): Promise<void> {
  for (const until = Date.now() + ms; ;) {
    const done = await write().then(
      () => true,
      () => false,
    );
    if (done || signal.aborted || Date.now() + 1000 > until) return;
    await new Promise((r) => setTimeout(r, 1000).unref());
  }
}

/** Writes each stream's rule and where its next run is (the due set's member) into the schedule hash, for status. */
async function recordRules(o: StartControlOptions, streams: readonly DueStream[], key: string, firstAt: (s: DueStream) => number) {
  for (const s of streams) {
    const rule: Record<string, string> =
      'every' in s.schedule
        ? { every: String(Math.round(s.schedule.every * 1000)) }
        : { pattern: s.schedule.pattern, ...(s.schedule.tz ? { tz: s.schedule.tz } : {}) };
    const id = s.kind.feed.scheduler;
    await o.redis.hdel(o.keys.schedule(), `${id}.every`, `${id}.pattern`, `${id}.tz`);
    const nextRunAt = new Date(firstAt(s)).toISOString();
    await recordSchedule(o, id, { ...rule, nextRunAt, due: JSON.stringify({ key, member: s.member }) });
  }
}

/** The released version ran cron streams by job schedulers of a `control` queue: removed, so none runs twice. */
async function removeReleasedSchedulers(o: StartControlOptions): Promise<void> {
  if (!(await o.redis.exists(`${o.prefix}:${CONTROL_QUEUE}:repeat`))) return;
  const queue = new Queue(CONTROL_QUEUE, { connection: o.redis, prefix: o.prefix });
  queue.on('error', () => undefined);
  try {
    for (const kind of o.kinds) await queue.removeJobScheduler(kind.feed.scheduler);
  } finally {
    await queue.close();
  }
}
