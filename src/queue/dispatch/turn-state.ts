/**
 * The state of a process's turns (dispatcher.ts): the options, the accounts open here, and how a turn ends (closed when
 * idle, handed back when long, kept when it would be claimed straight back, dropped when its lease is another's), with
 * the look that decides which.
 */
import type { Logger } from '../../log/logger.js';
import { nextLookAt, type AccountWork } from './account-work.js';
import type { ReadySet } from './ready-set.js';

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
  /**
   * How often while this process is full and accounts wait for a place (and how soon after a mark heard while full), in
   * ms: an open account with nothing to do hands its place over within this.
   */
  fullLookMs: number;
  /** How soon an account with records waiting for a reference, or with held jobs, is looked at again, in ms. */
  lookAgainMs: number;
}

export interface Open {
  name: string;
  since: number;
  /** The turn once started. */
  turn?: Turn;
  starting: Promise<Turn | undefined>;
  /** Since when it has had nothing to do. */
  idleSince?: number;
  closing?: Promise<void>;
}

/** What a process's dispatcher keeps. */
export interface State {
  o: DispatcherOptions;
  open: Map<string, Open>;
  /** Accounts this process does not run (or could not start), claimed anyway: handed back, and skipped for a while. */
  skip: Map<string, number>;
  failed(err: unknown, what: string): void;
  /** Wakes the claim loop (a place was freed). */
  nudge(): void;
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
export function finish(s: State, e: Open, why: 'idle' | 'yield' | 'closed'): Promise<void> {
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
export function drop(s: State, e: Open): Promise<void> {
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
 * A look at the open accounts (dispatcher.ts: once a second, more often while accounts wait): leases renewed (and those
 * a dead process left given back), idle accounts closed, and, in a full process, as many places handed back as
 * accounts wait for one: first the accounts with nothing to do now (closed without waiting out ACCOUNT_IDLE_SECONDS:
 * the place is worth more to one with work), then the turns past ACCOUNT_TURN_SECONDS, the longest first. Answers
 * whether accounts wait for a place while this process is full.
 */
export async function look(s: State): Promise<boolean> {
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
  if (names.length < o.places) return false;
  const waiting = await waitingCount(o.ready, now);
  const handed = [...idle, ...long.sort((a, b) => a.since - b.since)].slice(0, waiting);
  for (const e of handed) void finish(s, e, e.idleSince === undefined ? 'yield' : 'idle');
  return waiting > 0;
}

/** How many accounts wait for a place, held by no process (each shard's count looked at up to 1000). */
async function waitingCount(ready: ReadySet, now: number): Promise<number> {
  let n = 0;
  for (let shard = 0; shard < ready.shards; shard++) n += await ready.waiting(shard, now);
  return n;
}
