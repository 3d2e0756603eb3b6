/**
 * The turns' own rules, with several accounts (src/queue/dispatch/): every account with work gets its turn, and a
 * worker killed mid-turn loses no account (its lease ends, another process takes the account up).
 */
import { existsSync, readFileSync } from 'node:fs';
import type { Queue } from 'bullmq';
import { dispatchDefaults } from '../../config/accounts-defaults.js';
import { STREAMS } from '../../jobs/kinds.js';
import { shardKeys, shardOf } from '../../src/queue/dispatch/ready-set.js';
import { readCallHolds } from '../../src/queue/hold/call-hold.js';
import { readOutage } from '../../src/queue/hold/outage-state.js';
import { readBreaker } from '../../src/queue/hold/refusal-state.js';
import type { StreamName } from '../../src/records/stream-name.js';
import { redisKeys, type RedisConnection } from '../../src/redis/connection.js';
import { check, type CheckResult } from './check-types.js';
import type { KillEvent } from './worker-slots.js';

/** An account as the watch reads it: its name, its prefix, its record and intake queues. */
export interface WatchedAccount {
  name: string;
  prefix: string;
  queues: Map<StreamName, Queue>;
  intakes: Map<StreamName, Queue>;
}

/** How long an account may have jobs waiting with no process holding it (a mark missed: the sweep is once a minute). */
export const UNSERVED_LIMIT_MS = dispatchDefaults.accountsSweepMs + dispatchDefaults.accountLeaseMs;

/**
 * How long an account may have jobs waiting and finish none, whoever holds it: its process frozen (freezeSeconds) or
 * killed (its lease ends after accountLeaseMs), Redis refusing writes (redisFullSeconds), and half a minute more.
 */
export function stallLimitMs(o: { freezeSeconds: number; redisFullSeconds: number }): number {
  return Math.max(o.freezeSeconds * 1000, dispatchDefaults.accountLeaseMs, o.redisFullSeconds * 1000) + 30_000;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Looks at every account once a second: its jobs waiting (record and intake queues), whether a process holds its lease
 * (the ready set's `:lease`, src/queue/dispatch/ready-set.ts) and whether the account holds its own work (its outage,
 * a stream its breaker paused, a call held: then it waits by design). Keeps, per account, the longest span with jobs
 * waiting, no hold of its own and no process holding it, and the last time it had work.
 */
export class TurnWatch {
  readonly longest = new Map<string, { ms: number; at: number }>();
  /** Per account, the longest span with jobs waiting, no hold of its own, and no job finished (held by a process or not). */
  readonly stalled = new Map<string, { ms: number; at: number }>();
  readonly lastWork = new Map<string, number>();
  private readonly since = new Map<string, number>();
  private readonly stallSince = new Map<string, { at: number; finished: number }>();
  private running = false;
  private loop?: Promise<void>;
  samples = 0;

  constructor(
    private readonly conn: RedisConnection,
    private readonly base: string,
    private readonly accounts: WatchedAccount[],
  ) {}

  start(): void {
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        await this.sample().catch(() => undefined);
        await sleep(1000);
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  private async sample(): Promise<void> {
    const now = Date.now();
    for (const a of this.accounts) {
      let waiting = 0;
      let unfinished = 0;
      let finished = 0;
      for (const q of [...a.queues.values(), ...a.intakes.values()]) {
        const c = await q.getJobCounts('wait', 'prioritized', 'active', 'delayed', 'completed', 'failed');
        const w = (c.wait ?? 0) + (c.prioritized ?? 0);
        waiting += w;
        unfinished += w + (c.active ?? 0) + (c.delayed ?? 0);
        finished += (c.completed ?? 0) + (c.failed ?? 0);
      }
      if (unfinished > 0) this.lastWork.set(a.name, now);
      const lease = await this.conn.zscore(shardKeys(this.base, shardOf(a.name, dispatchDefaults.readyShards)).lease, a.name);
      const open = lease !== null && Number(lease) > now;
      const held = waiting > 0 && (await this.holdsItself(a));
      const stall = this.stallSince.get(a.name);
      if (waiting > 0 && !held && stall?.finished === finished) {
        const ms = now - stall.at;
        if (ms > (this.stalled.get(a.name)?.ms ?? -1)) this.stalled.set(a.name, { ms, at: stall.at });
      } else {
        this.stallSince.set(a.name, { at: now, finished });
        if (!this.stalled.has(a.name)) this.stalled.set(a.name, { ms: 0, at: now });
      }
      if (waiting > 0 && !open && !held) {
        const from = this.since.get(a.name) ?? now;
        this.since.set(a.name, from);
        const ms = now - from;
        if (ms > (this.longest.get(a.name)?.ms ?? -1)) this.longest.set(a.name, { ms, at: from });
      } else {
        this.since.delete(a.name);
        if (!this.longest.has(a.name)) this.longest.set(a.name, { ms: 0, at: now });
      }
    }
    this.samples++;
  }

  private async holdsItself(a: WatchedAccount): Promise<boolean> {
    const keys = redisKeys(a.prefix);
    if ((await readOutage(this.conn, keys)).open) return true;
    if ((await readCallHolds(this.conn, keys)).some((c) => c.held)) return true;
    for (const s of STREAMS) if ((await readBreaker(this.conn, keys, s)).paused) return true;
    return false;
  }
}

/**
 * The rule: no account had jobs waiting, and nothing of its own holding them, with no process holding it for longer
 * than UNSERVED_LIMIT_MS, nor with no job finished for longer than the stall limit (a process holding it and doing
 * nothing: a turn that could not start, workers that stopped).
 */
export function checkTurns(w: TurnWatch, accounts: string[], stallMs: number): CheckResult {
  const v: string[] = [];
  if (w.samples < 10) v.push(`the accounts were looked at ${w.samples} times only`);
  const at = (ms: number) => new Date(ms).toISOString().slice(11, 19);
  for (const name of accounts) {
    const l = w.longest.get(name);
    const s = w.stalled.get(name);
    if (!l || !s) v.push(`${name}: never looked at`);
    if (l && l.ms > UNSERVED_LIMIT_MS)
      v.push(
        `${name}: jobs waited ${(l.ms / 1000).toFixed(1)} s from ${at(l.at)} with no process holding the account (at most ${UNSERVED_LIMIT_MS / 1000} s)`,
      );
    if (s && s.ms > stallMs)
      v.push(`${name}: jobs waited ${(s.ms / 1000).toFixed(1)} s from ${at(s.at)} and none finished (at most ${stallMs / 1000} s)`);
  }
  const worst = (m: Map<string, { ms: number }>) => (Math.max(0, ...accounts.map((n) => m.get(n)?.ms ?? 0)) / 1000).toFixed(1);
  return check(
    `every account with work gets its turn: jobs waiting with no process holding the account at most ${UNSERVED_LIMIT_MS / 1000} s ` +
      `(longest ${worst(w.longest)} s), with none finished at most ${stallMs / 1000} s (longest ${worst(w.stalled)} s); ${w.samples} looks`,
    accounts.length,
    v,
  );
}

/** How long after a cut turn's lease may end before the account is open again (a claim is at most a second away). */
const CUT_SLACK_MS = 20_000;

/** A turn a kill cut: the account a killed process had open, and when the account's next turn began (any process). */
export interface CutTurn {
  account: string;
  pid: number;
  killedAt: number;
  /** ms from the kill to the account's next turn; null when it had none. */
  nextAfterMs: number | null;
}

interface TurnLine {
  pid: number;
  time: number;
  account: string;
  began: boolean;
}

function turnLines(files: string[]): TurnLine[] {
  const out: TurnLine[] = [];
  for (const f of files) {
    if (!existsSync(f)) continue;
    for (const line of readFileSync(f, 'utf8').split('\n')) {
      if (!line.includes('its turn')) continue;
      try {
        const r = JSON.parse(line) as { pid?: number; time?: number; msg?: string };
        const m = /^account ([a-z0-9-]+): its turn (began|ended)$/.exec(r.msg ?? '');
        if (m && r.pid && r.time) out.push({ pid: r.pid, time: r.time, account: m[1]!, began: m[2] === 'began' });
      } catch {
        // Not a log record.
      }
    }
  }
  return out.sort((a, b) => a.time - b.time);
}

/** The turns each kill cut, from the workers' logs ("account X: its turn began/ended", debug level, with the pid). */
export function cutTurns(logFiles: string[], kills: KillEvent[], t0: number): CutTurn[] {
  const lines = turnLines(logFiles);
  const out: CutTurn[] = [];
  for (const k of kills) {
    const at = t0 + k.atMs;
    const open = new Set<string>();
    for (const l of lines) {
      if (l.pid !== k.pid || l.time > at) continue;
      if (l.began) open.add(l.account);
      else open.delete(l.account);
    }
    for (const account of open) {
      const next = lines.find((l) => l.began && l.account === account && l.time > at);
      out.push({ account, pid: k.pid, killedAt: at, nextAfterMs: next ? next.time - at : null });
    }
  }
  return out;
}

/**
 * The rule: every account a kill left open (its lease held by a dead process) was taken up again, or had no work left
 * once its lease could have ended. That its work then finished once is the exactly-once rules' (per account).
 */
export function checkCutTurns(cut: CutTurn[], w: TurnWatch, kills: number): CheckResult {
  const v: string[] = [];
  const leaseMs = dispatchDefaults.accountLeaseMs;
  for (const c of cut) {
    const workAfter = (w.lastWork.get(c.account) ?? 0) > c.killedAt + leaseMs + 5_000;
    if (c.nextAfterMs === null && workAfter)
      v.push(`${c.account}: open in worker pid ${c.pid} when it was killed, had work after, and no turn began again`);
    else if (c.nextAfterMs !== null && c.nextAfterMs > leaseMs + CUT_SLACK_MS && workAfter)
      v.push(
        `${c.account}: its next turn began ${(c.nextAfterMs / 1000).toFixed(1)} s after the kill of pid ${c.pid} (at most ${(leaseMs + CUT_SLACK_MS) / 1000} s: its lease, then a claim)`,
      );
  }
  const gaps = cut.flatMap((c) => (c.nextAfterMs === null ? [] : [c.nextAfterMs]));
  return check(
    `a worker killed mid-turn loses no account: ${cut.length} turns cut by ${kills} kills, each account taken up again ` +
      `(its lease ended; next turn ${gaps.length ? `${(Math.min(...gaps) / 1000).toFixed(1)}-${(Math.max(...gaps) / 1000).toFixed(1)} s` : 'none needed'} after the kill)`,
    cut.length,
    v,
  );
}
