import { defaults } from '../../config/defaults.js';
import type { Logger } from '../log/logger.js';
import { logRepeated, reasonOf } from '../log/log-throttle.js';
import { messageOf } from '../errors/message-of.js';
import { findRedisFailure } from '../redis/errors.js';
import type { RedisConnection as Redis } from '../redis/connection.js';
import { dueSet, type ClaimedMember, type DueClaim, type DueEntry, type DueSet } from './due-set.js';

/**
 * The process's one loop over the deployment's due set (src/feed/due-set.ts), whatever the number of accounts: each
 * look claims the members due (one Lua script for them all: each member taken by one process), runs them, renews
 * their leases meanwhile, and sets each one's next time when it ends; then sleeps until the next member's time (at
 * least `gapMs` after the look, so that the members falling due meanwhile are claimed together; at most
 * `maxSleepMs`), or until woken. An interval's member is claimed to its next slot: a run that answers that slot
 * writes nothing more (one write a run), and a run still going halfway to that slot is renewed for a lease (then
 * ended as any other), so no other process starts it meanwhile. An idle deployment costs about two commands a second
 * per process.
 */

/** What runs a member: its run answers the member's next time (undefined: the member is removed). */
export type DueRun = (claim: DueClaim, signal: AbortSignal) => Promise<number | undefined>;

export interface DueLoopOptions {
  redis: Redis;
  /** The due set's key (dueKey of the deployment's base prefix). */
  key: string;
  logger: Logger;
  /**
   * A claim's lease, renewed while it runs: a process that died leaves its member due again this long after (an
   * interval's member, claimed to its next slot and not renewed yet: at that slot).
   */
  leaseMs?: number;
  /** The longest sleep between looks, in ms. */
  maxSleepMs?: number;
  /** The shortest time between two looks, in ms: what falls due meanwhile is claimed in one look. */
  gapMs?: number;
  /** Runs at once in this process, over every account. */
  concurrency?: number;
  /**
   * The run of a due member no run is registered for here (an account whose parts are not open in this process: it
   * opens them, and they register their runs), or undefined when this process does not run it (looked at again later).
   */
  resolve?: (member: string) => Promise<DueRun | undefined>;
}

export interface DueLoop {
  set: DueSet;
  /** Registers members with their runs (their times as DueSet.register says), and wakes the loop. */
  register(entries: ReadonlyArray<DueEntry & { run: DueRun }>): Promise<void>;
  /** Gives a member (registered) a time unless it has one (a make-up look), and wakes the loop. */
  add(member: string, at: number, run: DueRun): Promise<void>;
  /** Gives a member a time unless it has a sooner one, and wakes the loop by then (its run: `resolve`'s). */
  soonest(member: string, at: number): Promise<void>;
  /** The run registered here for a member, if any. */
  registered(member: string): DueRun | undefined;
  /** Stops running members (their entries stay in Redis: another process, or the next start, runs them). */
  forget(members: readonly string[]): void;
  /** Stops the loop; running members get `graceMs` to end, then are aborted (their leases end, and are taken again). */
  close(graceMs?: number): Promise<boolean>;
}

const BATCH = 100;

/** Starts the process's loop. */
export function startDueLoop(o: DueLoopOptions): DueLoop {
  const set = dueSet(o.redis, o.key);
  const leaseMs = o.leaseMs ?? defaults.pullLockTtlMs;
  const maxSleepMs = o.maxSleepMs ?? defaults.dueLoopSleepMs;
  const concurrency = o.concurrency ?? defaults.duePullsAtOnce;
  const [runs, active, abort, sleep] = [new Map<string, DueRun>(), new Map<string, Promise<void>>(), new AbortController(), sleeper()];
  let stopped = false;
  const wakeUp = () => sleep.wakeBy(-Infinity);
  const runOf = runFinder(o, runs, maxSleepMs);

  /** Claims and starts what is due (one script: src/feed/due-set.ts); answers when to look next. */
  const lookOnce = async (): Promise<number> => {
    const now = Date.now();
    const room = Math.min(concurrency - active.size, BATCH);
    // Full: a run that ends wakes the loop.
    if (room <= 0) return now + maxSleepMs;
    const { claimed, nextAt } = await set.claimDue(now, leaseMs, room, [...active.keys(), ...runOf.leaving(now)]);
    for (const c of claimed) {
      const run = await runOf(c.member, now);
      // Not run here (an account this process does not hold): given back for another process.
      if (!run) {
        await set.giveBack(c.member, c.score);
        continue;
      }
      const ran = () => run(c, abort.signal);
      const going = runMember(set, c, ran, leaseMs, () => stopped)
        .then((next) => sleep.wakeBy(next ?? Infinity))
        .catch((err: unknown) => failed(o.logger, err, 'a scheduled pull did not end its turn (stopped, or Redis?); it is taken again'))
        .finally(() => {
          // A place freed among the runs at once: looked at again now (else the loop looks at the next due time).
          if (active.size >= concurrency) wakeUp();
          active.delete(c.member);
        });
      active.set(c.member, going);
    }
    // As many claimed as there was room: more may be due behind them (a thousand accounts' polls), looked at soon.
    if (claimed.length === room) return now;
    return nextAt ?? now + maxSleepMs;
  };

  const looping = looks(lookOnce, sleep, { logger: o.logger, maxSleepMs, gapMs: o.gapMs ?? defaults.dueLoopGapMs, stopped: () => stopped });

  return {
    set,
    async register(entries) {
      for (const e of entries) runs.set(e.member, e.run);
      await set.register(entries);
      wakeUp();
    },
    async add(member, at, run) {
      runs.set(member, run);
      await set.add(member, at);
      sleep.wakeBy(at);
    },
    async soonest(member, at) {
      await set.soonest(member, at);
      sleep.wakeBy(at);
    },
    registered: (member) => runs.get(member),
    forget: (members) => members.forEach((m) => runs.delete(m)),
    async close(graceMs = 10_000) {
      stopped = true;
      wakeUp();
      await looping;
      const done = Promise.all(active.values()).then(() => true);
      const ended = await Promise.race([done, new Promise<boolean>((r) => setTimeout(() => r(false), graceMs).unref())]);
      if (!ended) abort.abort();
      return ended;
    },
  };
}

/**
 * A member's run: the one registered here, else `resolve`'s (opening what runs it); a member this process could not
 * resolve is left to others for five looks (`leaving`: the looks leave it unclaimed).
 */
function runFinder(o: DueLoopOptions, runs: ReadonlyMap<string, DueRun>, maxSleepMs: number) {
  const unresolved = new Map<string, number>();
  const find = async (member: string, now: number): Promise<DueRun | undefined> => {
    const known = runs.get(member);
    if (known || !o.resolve) return known;
    const run = await o.resolve(member).catch((err: unknown) => {
      failed(o.logger, err, `could not open what ${member} runs; looked at again`);
      return undefined;
    });
    if (!run) unresolved.set(member, now + maxSleepMs * 5);
    else unresolved.delete(member);
    return run;
  };
  return Object.assign(find, {
    /** The members left to other processes now. */
    leaving(now: number): string[] {
      for (const [member, until] of unresolved) if (until <= now) unresolved.delete(member);
      return [...unresolved.keys()];
    },
  });
}

/** Looks until stopped, at least `gapMs` apart: the members falling due meanwhile are claimed together (one script). */
async function looks(
  lookOnce: () => Promise<number>,
  sleep: ReturnType<typeof sleeper>,
  o: { logger: Logger; maxSleepMs: number; gapMs: number; stopped: () => boolean },
): Promise<void> {
  while (!o.stopped()) {
    const lookedAt = Date.now();
    const nextAt = await lookOnce().catch((err: unknown) => {
      failed(o.logger, err, 'could not look at the due set for scheduled pulls (Redis?); looking again');
      return Date.now() + o.maxSleepMs;
    });
    if (!o.stopped()) await sleep.until(Math.max(Math.min(nextAt, Date.now() + o.maxSleepMs), lookedAt + o.gapMs));
  }
}

/** The loop's sleep until a time, which a member due sooner brings forward (`wakeBy`). */
function sleeper() {
  let sleeping: { until: number; timer: NodeJS.Timeout; resolve: () => void } | undefined;
  return {
    async until(at: number): Promise<void> {
      await new Promise<void>((resolve) => {
        sleeping = { until: at, timer: setTimeout(resolve, Math.max(0, at - Date.now())), resolve };
      });
      sleeping = undefined;
    },
    wakeBy(at: number): void {
      const s = sleeping;
      if (!s || at >= s.until) return;
      clearTimeout(s.timer);
      s.until = at;
      s.timer = setTimeout(s.resolve, Math.max(0, at - Date.now()));
    },
  };
}

/**
 * Runs a claimed member, renewing its lease meanwhile, and ends the claim with its next time (answered). A claim to
 * the next slot is first renewed halfway to that slot (before another process would take it), and needs no end when
 * it was not renewed and its run answers that slot.
 */
async function runMember(set: DueSet, c: ClaimedMember, run: () => Promise<number | undefined>, leaseMs: number, stopped: () => boolean) {
  // Whether its score is a lease (claimed for one, or renewed since): then its end is written whatever the answer.
  let leased = c.next === undefined;
  let timer: NodeJS.Timeout | undefined;
  const renewIn = (ms: number) => {
    timer = setTimeout(() => {
      leased = true;
      void set.renew(c.member, Date.now() + leaseMs).catch(() => undefined);
      renewIn(leaseMs / 3);
    }, ms);
    timer.unref();
  };
  renewIn(c.next === undefined ? leaseMs / 3 : Math.max(0, Math.min(leaseMs / 3, (c.next - Date.now()) / 2)));
  try {
    // A run that throws (stopped past its grace period, Redis away) leaves its lease to end, or its member at its next
    // slot: it is taken again.
    const next = await run();
    // No renewal once it ended: a renewal sent after the end would put the lease back over the next time.
    clearTimeout(timer);
    if (leased || next !== c.next) await finishing(set, c.member, next, leaseMs, stopped);
    return next;
  } finally {
    clearTimeout(timer);
  }
}

/** Ends a claim; a refused end (Redis full, away) is tried again each second while the lease lasts. */
async function finishing(set: DueSet, member: string, next: number | undefined, leaseMs: number, stopped: () => boolean) {
  const until = Date.now() + leaseMs;
  for (;;) {
    try {
      return await set.finish(member, next);
    } catch (err) {
      if (stopped() || Date.now() + 1000 > until) throw err;
      await new Promise((r) => setTimeout(r, 1000).unref());
    }
  }
}

/** Redis away fails every look: said once every 30 s (at debug: the write probe tells it). */
function failed(logger: Logger, err: unknown, text: string) {
  logRepeated(logger, findRedisFailure(err) ? 'debug' : 'warn', `due-loop:${reasonOf(err)}`, { err: messageOf(err) }, text);
}
