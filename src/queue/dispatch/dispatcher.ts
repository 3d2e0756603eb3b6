import type { Logger } from '../../log/logger.js';
import { logRepeated, reasonOf } from '../../log/log-throttle.js';
import { messageOf } from '../../errors/message-of.js';
import { nextLookAt, type AccountWork } from './account-work.js';
import type { ReadySet } from './ready-set.js';

/**
 * A process's turns: which accounts it has open, taken from the deployment's ready set (ready-set.ts) as its places
 * allow (WORKER_ACCOUNTS_OPEN), closed when they have had nothing to do for ACCOUNT_IDLE_SECONDS (at once when the
 * process is full and others wait), and handed back when
 * they have held their place ACCOUNT_TURN_SECONDS while others wait for one (or kept open, charged, when the ready
 * set would give them the place straight back). An account with nothing to do is open nowhere: it holds no connection,
 * worker or timer. One claim loop and one look a second per process, whatever the number of accounts.
 */

/** An account's turn in this process: its workers running. */
export interface Turn {
  /** Jobs of the account running in this process now. */
  active(): number;
  /** Stops taking jobs; the active ones get the grace period. */
  close(): Promise<void>;
}

export interface DispatcherOptions {
  ready: ReadySet;
  logger: Logger;
  /** Places for open accounts in this process (WORKER_ACCOUNTS_OPEN). */
  places: number;
  /** An open account with nothing to do this long is closed (ACCOUNT_IDLE_SECONDS), in ms. */
  idleMs: number;
  /** An open account hands its place back after this long when others wait (ACCOUNT_TURN_SECONDS), in ms. */
  turnMs: number;
  /** A lease's length, renewed while open: a process that died frees its accounts this long after. */
  leaseMs: number;
  /** How often a process with free places looks at the ready set, in ms. */
  pollMs: number;
  /** Whether this process runs the account (ACCOUNTS_FILE names it, and `--account` if given). */
  knows(account: string): boolean;
  /** Its weight (ACCOUNT_WEIGHT). */
  weight(account: string): number;
  /** Opens the account's turn. */
  startTurn(account: string): Promise<Turn>;
  /** Reads the account's queues. */
  work(account: string): Promise<AccountWork>;
  /** Asks for the account to be marked ready at a time (the due set's `<account>!wake`). */
  wakeAt(account: string, at: number): Promise<void>;
  /** How often the open accounts are looked at (leases renewed, idle ones closed), in ms. Default 1000. */
  lookMs?: number;
  /** How soon an account with records waiting for a reference, or with held jobs, is looked at again, in ms. */
  lookAgainMs: number;
}

interface Open {
  name: string;
  since: number;
  /** The turn once started. */
  turn?: Turn;
  starting: Promise<Turn | undefined>;
  /** Since when it has had nothing to do. */
  idleSince?: number;
  closing?: Promise<void>;
}

export interface Dispatcher {
  /** Says the account has work (a push, an import, a pull, a retry): it takes a turn somewhere soon. */
  mark(account: string): Promise<void>;
  /** Looks at the ready set now (a mark made in this process). */
  nudge(): void;
  /** The accounts open in this process. */
  open(): string[];
  /** Closes an account's turn here, if open (an account removed or changed): it is handed back with its work. */
  close(account: string): Promise<void>;
  /** Stops claiming, and closes every open account (their active jobs share one grace period). */
  stop(): Promise<void>;
}

/** What a process's dispatcher keeps. */
interface State {
  o: DispatcherOptions;
  open: Map<string, Open>;
  /** Accounts this process does not run (or could not start), claimed anyway: handed back, and skipped for a while. */
  skip: Map<string, number>;
  failed(err: unknown, what: string): void;
  /** Wakes the claim loop (a place was freed). */
  nudge(): void;
}

/**
 * Claims one account: from the shard whose lowest pass is lowest, then the next lowest (a shard's lowest may be
 * leased); answers whether it got one. On a cluster the heads are read one shard at a time (their own hash tags).
 */
async function claimOne(s: State): Promise<boolean> {
  const { o } = s;
  const now = Date.now();
  for (const [name, until] of s.skip) if (until <= now) s.skip.delete(name);
  const skipped = [...s.open.keys(), ...s.skip.keys()];
  const heads = await o.ready.heads();
  const order = heads.map((pass, shard) => ({ pass, shard })).filter((h) => Number.isFinite(h.pass));
  order.sort((a, b) => a.pass - b.pass);
  for (const { shard } of order) {
    const name = await o.ready.claim(shard, now, o.leaseMs, skipped);
    if (name === undefined) continue;
    if (!o.knows(name)) {
      s.skip.set(name, now + 10_000);
      await o.ready.release(name, 0, true);
      return true;
    }
    begin(s, name, now);
    return true;
  }
  return false;
}

/** Opens a claimed account's turn; one that cannot start is handed back and skipped here for a while. */
function begin(s: State, name: string, now: number): void {
  const entry: Open = { name, since: now, starting: Promise.resolve(undefined) };
  entry.starting = s.o.startTurn(name).then(
    (turn) => (entry.turn = turn),
    async (err: unknown) => {
      s.o.logger.error(
        { account: name, err: messageOf(err) },
        `account ${name}: its turn could not start (${messageOf(err)}); tried again`,
      );
      s.open.delete(name);
      s.skip.set(name, Date.now() + 10_000);
      await s.o.ready.release(name, 0, true).catch((e: unknown) => s.failed(e, 'a turn not started could not be handed back'));
      return undefined;
    },
  );
  s.open.set(name, entry);
}

/** A turn's charge: the time it held its place over the account's weight. */
const chargeOf = (o: DispatcherOptions, e: Open, now: number) => Math.max(0.1, (now - e.since) / 1000) / Math.max(0.01, o.weight(e.name));

/**
 * A turn handed back that would be claimed straight back (its pass, charged, no higher than any waiting, or nothing
 * else waits) is charged and kept open rather than closed and opened again (the ready set's `keep`): its workers go on.
 */
async function kept(s: State, e: Open): Promise<boolean> {
  const now = Date.now();
  if (!(await s.o.ready.keep(e.name, chargeOf(s.o, e, now), now, s.o.leaseMs, [...s.skip.keys()]))) return false;
  e.since = now;
  e.idleSince = undefined;
  return true;
}

/**
 * Closes a turn, charges it and hands it back: with its work, or with a wake for its next delayed job. A turn handed
 * back (`yield`) that would be claimed straight back stays open instead. One that ends with nothing to do leaves the
 * ready set (a mark its own jobs made while it was open with it); its queues are read again after, so work added in
 * between marks it again.
 */
function finish(s: State, e: Open, why: 'idle' | 'yield' | 'closed'): Promise<void> {
  const { o } = s;
  e.closing ??= (async () => {
    const turn = await e.starting;
    if (why === 'yield' && turn && (await kept(s, e))) {
      e.closing = undefined;
      return;
    }
    await turn?.close();
    s.open.delete(e.name);
    const now = Date.now();
    const w = await o.work(e.name).catch(() => undefined);
    // Unread (Redis away): handed back as having work, so it is looked at again.
    const work = why === 'yield' || w === undefined || w.ready > 0;
    await o.ready.release(e.name, chargeOf(o, e, now), work);
    s.nudge();
    if (!work) {
      // Work added between the read and the release had its mark dropped with the account's: read again (unread: marked).
      const again = await o.work(e.name).catch(() => undefined);
      if (again === undefined || again.ready > 0) await o.ready.mark(e.name);
    }
    const at = w ? nextLookAt(w, now, o.lookAgainMs) : Infinity;
    if (Number.isFinite(at)) await o.wakeAt(e.name, at);
  })().catch((err: unknown) => {
    s.failed(err, `account ${e.name}: its turn did not end cleanly`);
  });
  return e.closing;
}

/**
 * Ends a turn whose lease another process holds now (this one stalled past it: a freeze, Redis away): its workers
 * close, and nothing is charged or released (the account is the other process's).
 */
function drop(s: State, e: Open): Promise<void> {
  s.o.logger.warn(
    { account: e.name },
    `account ${e.name}: its lease ended here (not renewed in time: another process took its turn, or will); ` + 'its workers here close',
  );
  e.closing ??= (async () => {
    const turn = await e.starting;
    await turn?.close();
    s.open.delete(e.name);
    s.nudge();
  })().catch((err: unknown) => {
    s.failed(err, `account ${e.name}: its turn did not end cleanly`);
  });
  return e.closing;
}

/**
 * Once a second: leases renewed (and those a dead process left given back), idle accounts closed, and, in a full
 * process, as many places handed back as accounts wait for one: first the accounts with nothing to do now (closed
 * without waiting out ACCOUNT_IDLE_SECONDS: the place is worth more to one with work), then the turns past
 * ACCOUNT_TURN_SECONDS, the longest first.
 */
async function look(s: State): Promise<void> {
  const { o } = s;
  const now = Date.now();
  const names = [...s.open.values()].filter((e) => !e.closing).map((e) => e.name);
  const lost = names.length ? await o.ready.renew(names, now + o.leaseMs) : [];
  for (const e of lost.map((name) => s.open.get(name))) if (e && !e.closing) void drop(s, e);
  // A process that died mid-turn: its accounts back in the ready set once their leases end (a third of one later at most).
  if ((await o.ready.recover(now, o.leaseMs / 3)).length) s.nudge();
  const idle: Open[] = [];
  const long: Open[] = [];
  for (const e of s.open.values()) {
    if (e.closing || !e.turn) continue;
    if (e.turn.active() > 0 || (await o.work(e.name)).ready > 0) e.idleSince = undefined;
    else e.idleSince ??= now;
    if (e.idleSince !== undefined && now - e.idleSince >= o.idleMs) void finish(s, e, 'idle');
    else if (e.idleSince !== undefined) idle.push(e);
    else if (now - e.since >= o.turnMs) long.push(e);
  }
  if ((!long.length && !idle.length) || names.length < o.places) return;
  const waiting = await waitingCount(o.ready, now);
  const handed = [...idle, ...long.sort((a, b) => a.since - b.since)].slice(0, waiting);
  for (const e of handed) void finish(s, e, e.idleSince === undefined ? 'yield' : 'idle');
}

/** How many accounts wait for a place, held by no process (each shard's count looked at up to 1000). */
async function waitingCount(ready: ReadySet, now: number): Promise<number> {
  let n = 0;
  for (let shard = 0; shard < ready.shards; shard++) n += await ready.waiting(shard, now);
  return n;
}

export function startDispatcher(o: DispatcherOptions): Dispatcher {
  let stopped = false;
  let nudge: (() => void) | undefined;
  // An empty ready set is looked at less and less often, up to once a second (a mark made in this process wakes it).
  let waitMs = o.pollMs;
  const s: State = {
    o,
    open: new Map(),
    skip: new Map(),
    failed: (err, what) =>
      logRepeated(o.logger, 'warn', `dispatch:${reasonOf(err)}`, { err: messageOf(err) }, `${what} (Redis?); tried again`),
    nudge: () => {
      waitMs = o.pollMs;
      nudge?.();
    },
  };
  const claimLoop = async () => {
    while (!stopped) {
      let got = false;
      if (s.open.size < o.places) got = await claimOne(s).catch((err: unknown) => (s.failed(err, 'could not claim an account'), false));
      waitMs = got ? o.pollMs : Math.min(waitMs * 2, Math.max(o.pollMs, 1000));
      if (got) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, waitMs);
        nudge = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      nudge = undefined;
    }
  };
  const looking = setInterval(
    () => void look(s).catch((err: unknown) => s.failed(err, 'could not look at the open accounts')),
    o.lookMs ?? 1000,
  );
  looking.unref();
  const claiming = claimLoop();

  return {
    async mark(account) {
      await o.ready.mark(account);
      s.nudge();
    },
    nudge: s.nudge,
    open: () => [...s.open.keys()],
    async close(account) {
      const e = s.open.get(account);
      if (e) await finish(s, e, 'closed');
    },
    async stop() {
      stopped = true;
      clearInterval(looking);
      nudge?.();
      await claiming;
      await Promise.all([...s.open.values()].map((e) => finish(s, e, 'closed')));
    },
  };
}
