/**
 * The chaos run's accounts past its first (`--accounts N`): each is an account of the deployment's ACCOUNTS_FILE with
 * its own sandbox (its own service account and API key), its own feed (its own token) and records of its own, under
 * the same storm: the worker kills, freezes, the Redis restart and Redis full hit every account, the service faults
 * and the tight budget each account's own service. The first account (`default`, the run's prefix) takes the phases
 * that are one account's fault (revoked key, outage, a call down, rotated credentials); the others must not wait for
 * it: each holds back a few orders of its feed and releases them as a fault of the first begins (HeldBatches).
 */
import { randomBytes } from 'node:crypto';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { accountPrefix } from '../../config/accounts.js';
import { STREAMS } from '../../jobs/kinds.js';
import { startFeedServer, type FeedServer } from '../../src/feed/feed-server.js';
import type { RedisConnection } from '../../src/redis/connection.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import type { SandboxState } from '../../src/sandbox/sandbox-entities.js';
import type { ChaosOptions } from './chaos-options.js';
import { check, type CheckResult } from './check-types.js';
import { feedJobId } from './poison.js';
import { buildScenario, type Scenario } from './scenario.js';

/** The name of the first account in ACCOUNTS_FILE: `default` keeps the run's prefix (config/accounts.ts). */
export const FIRST_ACCOUNT = 'default';

/** Orders each other account holds back for each fault of the first account. */
const HELD_PER_BATCH = (orders: number) => Math.max(10, Math.min(40, Math.round(orders * 0.04)));
/** The faults of the first account during which the others' held orders are released. */
export const HELD_PHASES = ['revoked key', 'outage'] as const;
export type HeldPhase = (typeof HELD_PHASES)[number];

/** One account past the first. */
export interface OtherAccount {
  name: string;
  prefix: string;
  sandbox: Sandbox;
  feed: FeedServer;
  apiKey: string;
  apiSecret: string;
  upstreamToken: string;
  scenario: Scenario;
  initial: SandboxState;
  /** Its object in ACCOUNTS_FILE. */
  settings: Record<string, string>;
  /** Orders kept out of its feed's drip, a batch per phase of HELD_PHASES, appended when the phase begins. */
  held: Map<HeldPhase, unknown[]>;
  drip(): boolean;
}

/** The accounts' records: the first's scenario as given; each other's smaller, with its own seed and no import. */
export function otherScenario(o: ChaosOptions, index: number): Scenario {
  return buildScenario({
    orders: Math.max(50, Math.round(o.orders / 5)),
    countsPerLocation: o.countsPerLocation,
    countShare: o.countShare,
    boms: Math.min(o.boms, 10),
    redeliveryRate: o.redeliveryRate,
    badPerStream: o.badRounds,
    importShare: 0,
    lifeShare: o.lifeShare,
    seed: o.seed * 100 + index,
  });
}

/**
 * Feeds a scenario's streams in parts: 40% at the start, the rest in `steps` parts (one each drip), as the run's feed
 * grows while the workers poll. `keep` leaves records out (held back for later).
 */
export function dripper(records: Scenario['feed'], keep: (r: unknown) => boolean = () => true) {
  const first = 0.4;
  const steps = 6;
  const streams = Object.fromEntries(STREAMS.map((s) => [s, records[s].filter(keep)])) as Scenario['feed'];
  const cut = (n: number, i: number) => Math.round(n * (first + ((1 - first) * i) / steps));
  let step = 0;
  return {
    initial: Object.fromEntries(STREAMS.map((s) => [s, streams[s].slice(0, cut(streams[s].length, 0))])),
    /** Appends the next part to `feed`; answers whether more is left. */
    drip(feed: FeedServer): boolean {
      if (step >= steps) return false;
      step++;
      for (const s of STREAMS) feed.append(s, streams[s].slice(cut(streams[s].length, step - 1), cut(streams[s].length, step)));
      return step < steps;
    },
  };
}

/** Good orders delivered once, from the end of the feed: the batches each other account holds back. */
function heldBatches(scenario: Scenario, per: number): Map<HeldPhase, unknown[]> {
  const seen = new Map<string, number>();
  for (const r of scenario.feed.orders) {
    const id = (r as { orderId?: string }).orderId ?? '';
    seen.set(id, (seen.get(id) ?? 0) + 1);
  }
  const once = scenario.feed.orders.filter((r) => {
    const id = (r as { orderId?: string }).orderId ?? '';
    return scenario.goodOrders.has(id) && seen.get(id) === 1;
  });
  const tail = once.slice(-per * HELD_PHASES.length);
  return new Map(HELD_PHASES.map((p, i) => [p, tail.slice(i * per, (i + 1) * per)]));
}

/** Starts the accounts past the first: a sandbox and a feed each, with the storm's budgets. */
export async function startOtherAccounts(
  o: ChaosOptions,
  base: string,
  sandboxOptions: (key: string, secret: string) => Parameters<typeof startSandbox>[0],
): Promise<OtherAccount[]> {
  const out: OtherAccount[] = [];
  for (let i = 2; i <= o.accounts; i++) {
    const name = `shop-${i}`;
    const hex = () => randomBytes(12).toString('hex');
    const [apiKey, apiSecret, upstreamToken] = [`chaos-key-${hex()}`, `chaos-secret-${hex()}`, `chaos-token-${hex()}`];
    const scenario = otherScenario(o, i);
    const held = heldBatches(scenario, HELD_PER_BATCH(scenario.goodOrders.size));
    const heldSet = new Set([...held.values()].flat());
    const sandbox = await startSandbox({ ...sandboxOptions(apiKey, apiSecret), account: name });
    const d = dripper(scenario.feed, (r) => !heldSet.has(r));
    const feed = await startFeedServer({ names: STREAMS, token: upstreamToken, pageSize: 200, streams: d.initial });
    out.push({
      name,
      prefix: accountPrefix(base, name),
      sandbox,
      feed,
      apiKey,
      apiSecret,
      upstreamToken,
      scenario,
      initial: sandbox.admin.state(),
      held,
      drip: () => d.drip(feed),
      settings: {
        INVENTORY_BASE_URL: sandbox.url,
        INVENTORY_ACCOUNT: sandbox.account,
        INVENTORY_API_KEY: apiKey,
        INVENTORY_API_SECRET: apiSecret,
        UPSTREAM_URL: feed.url,
        UPSTREAM_TOKEN: upstreamToken,
      },
    });
  }
  return out;
}

/** Writes ACCOUNTS_FILE: the first account takes every setting from the environment; each other its own service and feed. */
export function writeAccountsFile(dir: string, others: OtherAccount[]): string {
  const file = join(dir, 'accounts.json');
  const doc = { accounts: { [FIRST_ACCOUNT]: {}, ...Object.fromEntries(others.map((a) => [a.name, a.settings])) } };
  writeFileSync(`${file}.tmp`, JSON.stringify(doc, null, 2), { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
  return file;
}

/** A released batch: which account, at which fault of the first, when, and how many of its orders were done in time. */
export interface HeldRelease {
  phase: HeldPhase;
  account: string;
  orders: number;
  releasedAt: number;
  /** When the first account's hold ended (its key restored, its service back), epoch ms. */
  heldUntil?: number;
  /** Orders of the batch completed by then. */
  doneInTime?: number;
}

/**
 * The others' held orders: released as a fault of the first account begins, and counted while it lasts. One
 * account's revoked key or outage must hold none of another's work: each batch completes while the first is held.
 */
export class HeldBatches {
  readonly releases: HeldRelease[] = [];
  private readonly queues: Map<string, Queue>;

  constructor(
    private readonly others: OtherAccount[],
    conn: RedisConnection,
  ) {
    this.queues = new Map(others.map((a) => [a.name, new Queue('orders', { connection: conn, prefix: a.prefix })]));
    for (const q of this.queues.values()) q.on('error', () => undefined);
  }

  /** Appends each other account's batch for `phase` to its feed (once). */
  release(phase: HeldPhase): void {
    for (const a of this.others) {
      const batch = a.held.get(phase);
      if (!batch?.length) continue;
      a.held.delete(phase);
      a.feed.append('orders', batch);
      this.releases.push({ phase, account: a.name, orders: batch.length, releasedAt: Date.now() });
    }
  }

  /** Releases what no phase released (a run without that phase): those orders must sync all the same. */
  releaseRest(): void {
    for (const a of this.others) for (const batch of a.held.values()) a.feed.append('orders', batch);
    for (const a of this.others) a.held.clear();
  }

  /** How many of the batches of `phase` are done; all: every one of them is. */
  async done(phase: HeldPhase): Promise<{ done: number; of: number }> {
    let done = 0;
    let of = 0;
    for (const r of this.releases.filter((x) => x.phase === phase)) {
      const a = this.others.find((x) => x.name === r.account)!;
      const q = this.queues.get(a.name)!;
      const ids = this.batchIds(a, phase);
      of += ids.length;
      for (const id of ids) if ((await q.getJob(id).catch(() => undefined))?.finishedOn) done++;
    }
    return { done, of };
  }

  /** Waits (at most `limitMs`) for the batches of `phase` to be done: the first account's hold lasts meanwhile. */
  async waitDone(phase: HeldPhase, limitMs: number): Promise<void> {
    const until = Date.now() + limitMs;
    while (Date.now() < until) {
      const d = await this.done(phase).catch(() => ({ done: 0, of: 1 }));
      if (d.done >= d.of) return;
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /** Marks the end of the first account's hold for `phase`: what each batch had done by then. */
  async held(phase: HeldPhase): Promise<void> {
    const now = Date.now();
    for (const r of this.releases.filter((x) => x.phase === phase)) {
      const a = this.others.find((x) => x.name === r.account)!;
      const q = this.queues.get(a.name)!;
      let n = 0;
      for (const id of this.batchIds(a, phase)) if ((await q.getJob(id).catch(() => undefined))?.finishedOn) n++;
      r.heldUntil = now;
      r.doneInTime = n;
    }
  }

  private readonly ids = new Map<string, string[]>();
  private batchIds(a: OtherAccount, phase: HeldPhase): string[] {
    const key = `${a.name} ${phase}`;
    if (!this.ids.has(key)) {
      const batch = heldBatches(a.scenario, HELD_PER_BATCH(a.scenario.goodOrders.size)).get(phase) ?? [];
      this.ids.set(
        key,
        batch.map((r) => feedJobId('orders', r, a.scenario.bad)),
      );
    }
    return this.ids.get(key)!;
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close().catch(() => undefined)));
  }
}

/** The rule: each other account's held orders, released as a fault of the first began, all completed while it lasted. */
export function checkHeldBatches(o: ChaosOptions, h: HeldBatches): CheckResult {
  const v: string[] = [];
  const phases = HELD_PHASES.filter((p) => (p === 'revoked key' ? o.revokeKey : o.outageSeconds > 0));
  for (const phase of phases) {
    const rs = h.releases.filter((r) => r.phase === phase);
    if (rs.length < o.accounts - 1) v.push(`${phase}: the other accounts' orders were not released (${rs.length} of ${o.accounts - 1})`);
    for (const r of rs) {
      if (r.heldUntil === undefined) v.push(`${phase}: ${r.account}'s orders released, but the phase's end was not seen`);
      else if ((r.doneInTime ?? 0) < r.orders)
        v.push(
          `${phase} of ${FIRST_ACCOUNT}: ${r.account} completed ${r.doneInTime} of its ${r.orders} orders in the ` +
            `${((r.heldUntil - r.releasedAt) / 1000).toFixed(1)} s ${FIRST_ACCOUNT} was held (all of them must be)`,
        );
    }
  }
  return check(
    `one account's fault holds none of another's work (${FIRST_ACCOUNT}'s ${phases.join(' and ')}: the other accounts' orders released then completed meanwhile)`,
    h.releases.length,
    v,
  );
}
