import { setTimeout as delay } from 'node:timers/promises';
import type { Budgets } from '../../../config/read-config.js';
import type { RedisConnection as Redis, RedisKeys } from '../../redis/connection.js';
import { BudgetShares, shareTtlMs, type BudgetSharesOptions } from './share.js';
import { runScript } from '../../redis/scripts.js';
import { ACQUIRE, HOLD, sentBucketMs } from './budget-scripts.js';
import type { RequestClass } from '../service-api.js';
import { CLASSES, LANES, laneLimits, lanesRatePerSecond, TOTAL_WINDOW_MS, type BudgetLane } from './budget-lanes.js';

export type { BudgetLane };

/** A hold with less left than this when a waiting request wakes is over by the time the request arrives. */
const CLOCK_SLACK_MS = 5;
/** Lateness always tolerated, whatever the headroom: timers and event loops are never exact. */
const MIN_LATE_MS = 250;
/**
 * While a request of this process took budget this recently (ms), `refreshShares` reads the shares at every call (the
 * concurrency sizer's, every 2 s); otherwise at most every SHARES_IDLE_READ_MS. Only the jobs-at-once sizing reads this
 * process's view of the shares (acquire paces from Redis itself), and an idle account sizes nothing that runs: reading
 * 4 hashes every 2 s for it was 2 of its 37 commands a second (issue 36).
 */
const SHARES_IN_USE_MS = 10_000;
const SHARES_IDLE_READ_MS = 60_000;

export interface RequestBudgetOptions {
  redis: Redis;
  keys: RedisKeys;
  budgets: Budgets;
  /**
   * Requests a class may send back to back after an idle spell. Capped at half the headroom of its limit, so a
   * server counting fixed windows still never sees more than the limit. Default: that cap for `collection`
   * (3 at 300/h), none for `post`, `get` and `total`.
   */
  burst?: Partial<Record<BudgetLane, number>>;
  /**
   * Sharing the budgets with other clients of the account (share.ts): on by default; false paces to the
   * configured budgets alone (INVENTORY_ADAPTIVE_RATE=off, the behaviour before it).
   */
  shares?: BudgetSharesOptions | false;
}

export interface BudgetStats {
  /** Requests that took budget, per lane (a collection GET counts in `collection` and `get`; every request in `total` when set). */
  requests: Record<BudgetLane, number>;
  /** Ms requests were told to wait for budget, per class of the request. */
  waitedMs: Record<BudgetLane, number>;
  /** 429 holds placed, per class of the request answered 429. */
  holds: Record<BudgetLane, number>;
  /** Epoch ms until which a lane is held after a 429, for lanes held now. */
  heldUntil: Partial<Record<BudgetLane, number>>;
}

/** A request taking budget, as `watch` reports it: its class, and how long it waits for its slot (0: it goes now). */
export interface BudgetTake {
  cls: RequestClass;
  waitMs: number;
}

interface ClassPlan {
  /** The script's arguments: numkeys, keys, argv. Built once; the hot path reuses them. */
  args: Array<string | number>;
  /** Per lane the class spends: its schedule's key, its spacing and its burst tolerance (ms), for `peek`. */
  lanes: Array<{ tatKey: string; intervalMs: number; toleranceMs: number }>;
  /** Hold keys of the classes whose holds block this class. */
  holdKeys: string[];
  /** A wake-up later than this behind its slot takes a new slot (see acquire). */
  lateMs: number;
}

function zeroes(): Record<BudgetLane, number> {
  return { post: 0, get: 0, collection: 0, total: 0 };
}

/**
 * The account's request budgets, shared by every process through Redis. Each lane is a GCRA schedule:
 * `acquire` reserves the next slot of every lane the request spends (its class, and `total` when set) in one
 * EVALSHA, at the same instant, and sleeps until it; so requests go out evenly spaced at `limit × headroom` per
 * window in each lane, whichever classes share the total (in pulses of two slots while a share is read from 429s
 * alone: budget-scripts.ts). A 429 `hold`s the class for every process until the service's reset.
 */
export class RequestBudget {
  /** No budget at all (benchmarks without limits): acquire costs no Redis round trip; holds stay in this process. */
  static unlimited(): RequestBudget {
    return new RequestBudget(undefined);
  }

  readonly limited: boolean;
  private readonly redis?: Redis;
  private readonly keys?: RedisKeys;
  private readonly plans = new Map<RequestClass, ClassPlan>();
  private readonly hasTotal: boolean = false;
  /** Holds placed by this process, local epoch ms (the only holds an unlimited budget has). */
  private readonly heldUntil = zeroes();
  private readonly local = { requests: zeroes(), waitedMs: zeroes(), holds: zeroes() };
  /** The lanes' shares when other clients spend them too; none when unlimited or shares is false. */
  readonly shares?: BudgetShares;
  private readonly budgets?: Budgets;
  private readonly watchers = new Set<(take: BudgetTake) => void>();
  /** When a request of this process last took budget, and when the shares were last read (epoch ms). */
  private lastTakeAt = 0;
  private sharesReadAt = 0;

  constructor(opts: RequestBudgetOptions | undefined) {
    this.limited = opts !== undefined;
    if (!opts) return;
    this.redis = opts.redis;
    this.keys = opts.keys;
    this.budgets = opts.budgets;
    const l = laneLimits(opts.budgets);
    const h = opts.budgets.headroom;
    if (!(h > 0 && h <= 1)) throw new RangeError(`budget headroom must be in (0, 1], got ${h}`);
    this.hasTotal = l.total !== undefined;
    if (opts.shares !== false) this.shares = new BudgetShares(opts.redis, opts.keys, opts.budgets, opts.shares);
    const slot = (cls: BudgetLane) => {
      const { limit, windowMs } = l[cls]!;
      if (!(limit > 0)) throw new RangeError(`budget of ${cls} must be greater than 0, got ${limit}`);
      const interval = windowMs / (limit * h);
      const cap = Math.floor((limit * (1 - h)) / 2);
      const burst = Math.max(0, Math.min(Math.floor(opts.burst?.[cls] ?? (cls === 'collection' ? cap : 0)), cap));
      return { interval, tolerance: burst * interval };
    };
    for (const cls of CLASSES) {
      // A collection GET spends one `get` as well, and every request one `total`, all in the same script call.
      const group: BudgetLane[] = cls === 'collection' ? ['collection', 'get'] : [cls];
      if (this.hasTotal) group.push('total');
      const a = this.shares;
      const keys = group.flatMap((c) => [
        opts.keys.budget(c),
        opts.keys.budgetHold(c),
        opts.keys.budgetShare(c),
        opts.keys.budgetSent(c),
        a ? a.learntKey(c) : opts.keys.budgetLearnt(c, ''),
      ]);
      const argv = group.flatMap((c) => {
        const s = slot(c);
        const windowMs = l[c]!.windowMs;
        // What this program sent, by time: only the shares read it (a 429 while within the budget, a slow start's
        // proof). A fresh share starts from what the account's last processes learnt, or from the slow start.
        return [s.interval.toFixed(3), s.tolerance.toFixed(3), c, a ? sentBucketMs(windowMs) : 0, a ? a.start(c) : 1, shareTtlMs(windowMs)];
      });
      const holdKeys = group.map((c) => opts.keys.budgetHold(c));
      // Half the headroom's time absorbs late sends; the other half is the burst cap's.
      const lateMs = Math.max(MIN_LATE_MS, Math.min(...group.map((c) => (l[c]!.windowMs * (1 - h)) / 2)));
      const lanes = group.map((c) => ({ tatKey: opts.keys.budget(c), intervalMs: slot(c).interval, toleranceMs: slot(c).tolerance }));
      const pulse = a ? a.pulse() : 1;
      this.plans.set(cls, { args: [keys.length + 1, ...keys, opts.keys.budgetStats(), ...argv, pulse], holdKeys, lateMs, lanes });
    }
  }

  /** Waits (sleeping) until a request of this class may be sent; answers the ms waited. */
  async acquire(cls: RequestClass, signal?: AbortSignal): Promise<number> {
    if (!this.limited) return this.acquireLocal(cls, signal);
    const plan = this.plans.get(cls)!;
    const started = Date.now();
    this.lastTakeAt = started;
    for (;;) {
      signal?.throwIfAborted();
      const wait = Number(await runScript(this.redis!, ACQUIRE, plan.args));
      for (const w of this.watchers) w({ cls, waitMs: Math.max(0, wait) });
      if (wait <= 0) return Date.now() - started;
      const slotAt = Date.now() + wait;
      await delay(wait, undefined, signal ? { signal } : undefined);
      // Woken long after its slot (a stalled event loop): sending now would crowd the next slots' window, so
      // the passed slot is left unused and the request takes a new one.
      if (Date.now() - slotAt > plan.lateMs) continue;
      // A 429 hold placed by any process while this request waited moves it after the reset (a new slot).
      // Only requests that waited pay this read, and they are the ones the budget is pacing anyway.
      if ((await this.holdLeft(plan.holdKeys)) <= CLOCK_SLACK_MS) return Date.now() - started;
    }
  }

  /** Calls `listener` for every request of this process that takes budget, with its wait; answers how to stop. */
  watch(listener: (take: BudgetTake) => void): () => void {
    this.watchers.add(listener);
    return () => this.watchers.delete(listener);
  }

  /**
   * Without taking a slot: about how long a request of this class would wait now (every process's schedule and 429
   * holds), and the spacing of its binding lane once its burst is spent. Unlimited: no wait.
   */
  async peek(cls: RequestClass): Promise<{ waitMs: number; everyMs: number }> {
    if (!this.limited) return { waitMs: Math.max(0, this.holdEnd([cls]) - Date.now()), everyMs: 0 };
    const plan = this.plans.get(cls)!;
    const pipe = this.redis!.pipeline().time();
    for (const l of plan.lanes) pipe.get(l.tatKey);
    for (const k of plan.holdKeys) pipe.pttl(k);
    const replies = ((await pipe.exec()) ?? []).map(([, v]) => v);
    const [sec, micro] = (replies[0] as [string, string] | undefined) ?? [String(Date.now() / 1000), '0'];
    const now = Number(sec) * 1000 + Number(micro) / 1000;
    let waitMs = 0;
    plan.lanes.forEach((l, i) => {
      const tat = Number(replies[i + 1] ?? now);
      waitMs = Math.max(waitMs, tat - l.toleranceMs - now);
    });
    for (const ttl of replies.slice(1 + plan.lanes.length)) waitMs = Math.max(waitMs, Number(ttl));
    return { waitMs: Math.ceil(Math.max(0, waitMs)), everyMs: Math.max(...plan.lanes.map((l) => l.intervalMs)) };
  }

  /**
   * Blocks the class for every process until `untilEpochMs` (the service's reset after a 429). With a total
   * budget, a reset within the total's window holds `total` too: the 429 may be the total's, which every
   * class shares (possibly with other connectors of the account).
   */
  async hold(cls: RequestClass, untilEpochMs: number): Promise<void> {
    const ms = Math.ceil(untilEpochMs - Date.now());
    if (ms <= 0) return;
    if (!this.limited) {
      this.noteHold(cls, untilEpochMs);
      this.local.holds[cls]++;
      return;
    }
    const keys = this.keys!;
    const lanes: BudgetLane[] = this.hasTotal && ms <= TOTAL_WINDOW_MS ? [cls, 'total'] : [cls];
    await runScript(this.redis!, HOLD, [lanes.length + 1, ...lanes.map((c) => keys.budgetHold(c)), keys.budgetStats(), ms, cls]);
  }

  /** Reads an answer's X-RateLimit-* headers (and a 429) into the shared share of its lane; never throws. */
  async observe(cls: RequestClass, status: number, headers: Parameters<BudgetShares['observe']>[2]): Promise<void> {
    await this.shares?.observe(cls, status, headers).catch(() => undefined);
  }

  /**
   * Reads the shares as every process left them (share.ts's refresh), for ratePerSecond: at each call while this
   * process's requests take budget (one in the last SHARES_IN_USE_MS), else at most every SHARES_IDLE_READ_MS; the
   * first call after requests start again reads them.
   */
  async refreshShares(now = Date.now()): Promise<void> {
    if (!this.shares) return;
    if (now - this.lastTakeAt > SHARES_IN_USE_MS && now - this.sharesReadAt < SHARES_IDLE_READ_MS) return;
    this.sharesReadAt = now;
    await this.shares.refresh();
  }

  /** Requests a second the budgets let every process together send now, at their shares (Infinity when unlimited). */
  ratePerSecond(): number {
    if (!this.budgets) return Infinity;
    const a = this.shares;
    return lanesRatePerSecond(this.budgets, (lane) => a?.factor(lane) ?? 1);
  }

  /** Counters shared by every process (this process's own, when unlimited). */
  async stats(): Promise<BudgetStats> {
    if (!this.limited) {
      const heldUntil: BudgetStats['heldUntil'] = {};
      for (const c of CLASSES) if (this.heldUntil[c] > Date.now()) heldUntil[c] = this.heldUntil[c];
      return { requests: { ...this.local.requests }, waitedMs: { ...this.local.waitedMs }, holds: { ...this.local.holds }, heldUntil };
    }
    const keys = this.keys!;
    const pipe = this.redis!.pipeline().hgetall(keys.budgetStats());
    for (const c of LANES) pipe.pttl(keys.budgetHold(c));
    const replies = (await pipe.exec()) ?? [];
    const hash = (replies[0]?.[1] ?? {}) as Record<string, string>;
    const out: BudgetStats = { requests: zeroes(), waitedMs: zeroes(), holds: zeroes(), heldUntil: {} };
    const now = Date.now();
    LANES.forEach((c, i) => {
      out.requests[c] = Number(hash[`requests:${c}`] ?? 0);
      out.waitedMs[c] = Number(hash[`waitedMs:${c}`] ?? 0);
      out.holds[c] = Number(hash[`holds:${c}`] ?? 0);
      const pttl = Number(replies[i + 1]?.[1] ?? -2);
      if (pttl > 0) out.heldUntil[c] = now + pttl;
    });
    return out;
  }

  private async acquireLocal(cls: RequestClass, signal?: AbortSignal): Promise<number> {
    this.local.requests[cls]++;
    if (cls === 'collection') this.local.requests.get++;
    const end = this.holdEnd(cls === 'collection' ? ['collection', 'get'] : [cls]);
    const wait = end - Date.now();
    if (wait <= 0) return 0;
    await delay(wait, undefined, signal ? { signal } : undefined);
    this.local.waitedMs[cls] += wait;
    return wait;
  }

  /** Ms left on the longest of these holds (0 when none). */
  private async holdLeft(holdKeys: string[]): Promise<number> {
    const redis = this.redis!;
    const ttls = holdKeys.length === 1 ? [await redis.pttl(holdKeys[0]!)] : await Promise.all(holdKeys.map((k) => redis.pttl(k)));
    return Math.max(0, ...ttls);
  }

  private noteHold(cls: RequestClass, until: number): void {
    if (until > this.heldUntil[cls]) this.heldUntil[cls] = until;
  }

  private holdEnd(classes: readonly RequestClass[]): number {
    let end = 0;
    for (const c of classes) if (this.heldUntil[c] > end) end = this.heldUntil[c];
    return end;
  }
}

/** A budget that never waits (except after a 429 seen by this process). */
export function unlimitedBudget(): RequestBudget {
  return RequestBudget.unlimited();
}
