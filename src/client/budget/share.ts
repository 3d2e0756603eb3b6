import { defaults } from '../../../config/defaults.js';
import type { Budgets } from '../../../config/read-config.js';
import type { RedisConnection as Redis, RedisKeys } from '../../redis/connection.js';
import { SHARE } from './share-script.js';
import { runScript } from '../../redis/scripts.js';
import { sentBucketMs } from './budget-scripts.js';
import { laneLimits, LANES, lanesRatePerSecond, TOTAL_WINDOW_MS, type BudgetLane } from './budget-lanes.js';
import { readRateLimitHeaders } from '../answers/rate-limit-headers.js';
import type { RequestClass } from '../service-api.js';

/** Why a lane's effective rate is what it is (docs/service-client.md, "Sharing the budget"). */
export type ShareReason =
  | 'configured'
  | 'shared-429'
  | 'shared-remaining'
  | 'service-limit'
  | 'probing'
  | 'floor'
  | 'window-remaining'
  | 'slow-start'
  | 'remembered';

export interface ShareChange {
  lane: BudgetLane;
  /** The share of the configured budget taken now (0–1], and before. */
  factor: number;
  previous: number;
  reason: ShareReason;
  /** Requests a minute the others spend, as the headers show it; null when unknown. */
  otherPerMinute: number | null;
}

export interface BudgetSharesOptions {
  /** Least share of a configured budget, a fraction (INVENTORY_RATE_FLOOR_PERCENT / 100). Default defaults.rateFloorPercent. */
  floor?: number;
  /** Called when a lane's share or its reason changes (the program logs it). */
  onChange?: (change: ShareChange) => void;
  /**
   * Share a fresh process starts at when nothing is remembered for the account, a fraction
   * (INVENTORY_RATE_START_PERCENT / 100): it rises a step at a time while no 429 comes, until the full budget or the
   * first 429 (docs/budget-start.md). Default 1: no slow start.
   */
  start?: number;
  /** The slow start's step (a fraction of the budget; startStep()) and the time between steps (ms; defaults.rateStartStepMs). */
  startStep?: number;
  startStepMs?: number;
  /** A 429's hold while a lane yields after its crossing (ms; defaults.rateYieldStepMs). */
  yieldStepMs?: number;
  /**
   * Requests of a pulse while a lane's share is read from 429s alone (budget-scripts.ts, ACQUIRE; 1: none). Default
   * defaults.ratePulse.
   */
  pulse?: number;
  /** The account, whose learnt shares are remembered apart from another account's on the same prefix. Default ''. */
  account?: string;
}

/** The lanes a slow start applies to: those the answers speak of (the total when the account has one, else the classes). */
export function slowStartLanes(budgets: Budgets): BudgetLane[] {
  return budgets.requestsPerMinute === undefined ? ['post', 'get'] : ['total'];
}

/** The slow start's step (a fraction of the budget) for a rise of `risePercent` of the budget a minute. */
export function startStep(risePercent: number = defaults.rateStartRisePercent): number {
  return (risePercent / 100) * (defaults.rateStartStepMs / 60_000);
}

/** Life of a lane's learnt share (ms): a few of its windows, at least half an hour. */
export function learntTtlMs(windowMs: number): number {
  return Math.max(defaults.learntShareWindows * windowMs, 1_800_000);
}

/** Life of a lane's share hash (ms): three of its windows, at least ten minutes. */
export function shareTtlMs(windowMs: number): number {
  return Math.max(3 * windowMs, 600_000);
}

/**
 * With headers on 429s only: the share's step up, once a window of the service without a 429 (a fraction of the
 * configured budget). Small, so that a step past what the others leave fills the window in its last second.
 */
const PROBE_STEP = 0.01;
/** The part of what X-RateLimit-Remaining leaves that may go at once; only the rest is spread until the reset. */
const WINDOW_BURST_PART = 0.05;

/** How often an answer without headers runs the script while a lane is lowered (for its steps back up). */
const QUIET_STEP_MS = 1_000;
/** At or above the ceiling the last 429 showed, the probe steps up once in this many windows of the service. */
const PROBE_QUIET_ABOVE_CEILING = 4;
/** How often it runs at the full budget (to keep the account's learnt share alive). */
const QUIET_FULL_MS = 10_000;

type Headers = Readonly<Record<string, string | string[] | undefined>>;

/**
 * The account's budgets shared with other clients (AIMD, in Redis like the budgets): a 429 while this program paces
 * within its budget, or X-RateLimit-Remaining lower than its own answers explain, lowers a lane's share of its
 * configured budget; it then climbs back a step at a time. RequestBudget's acquire divides the lane's spacing by it.
 */
export class BudgetShares {
  private readonly limits: ReturnType<typeof laneLimits>;
  private readonly floor: number;
  private readonly local: Record<BudgetLane, number> = { post: 1, get: 1, collection: 1, total: 1 };
  private readonly lastStep: Record<BudgetLane, number> = { post: 0, get: 0, collection: 0, total: 0 };

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly budgets: Budgets,
    private readonly opts: BudgetSharesOptions = {},
  ) {
    this.limits = laneLimits(budgets);
    this.floor = Math.min(1, Math.max(0.01, opts.floor ?? defaults.rateFloorPercent / 100));
  }

  /** The slow start's first share of a lane (1: none; the collection's hourly budget never has one). */
  start(lane: BudgetLane = 'total'): number {
    if (!slowStartLanes(this.budgets).includes(lane)) return 1;
    return Math.min(1, Math.max(this.floor, this.opts.start ?? 1));
  }

  /** Requests a pulse sends together while a lane's share is read from 429s alone (1: evenly spaced). */
  pulse(): number {
    return Math.max(1, Math.floor(this.opts.pulse ?? defaults.ratePulse));
  }

  /** The account's learnt-share key of a lane. */
  learntKey(lane: BudgetLane): string {
    return this.keys.budgetLearnt(lane, this.opts.account ?? '');
  }

  /** This process's last view of a lane's share (refresh() reads every process's). */
  factor(lane: BudgetLane): number {
    return this.local[lane];
  }

  /** The lane an answer speaks of: the one whose configured limit the header names, else the total, else the class. */
  laneOf(cls: RequestClass, limit: number | undefined, resetAt: number | undefined, now = Date.now()): BudgetLane {
    const candidates: BudgetLane[] = cls === 'collection' ? ['collection', 'get'] : [cls];
    if (this.limits.total) candidates.push('total');
    const named = limit === undefined ? [] : candidates.filter((l) => this.limits[l]!.limit === limit);
    if (named.length === 1) return named[0]!;
    // Only the hourly collection budget resets further away than a minute.
    if (cls === 'collection' && resetAt !== undefined && resetAt - now > TOTAL_WINDOW_MS) return 'collection';
    if (this.limits.total) return 'total';
    return cls === 'collection' ? 'get' : cls;
  }

  /** Reads one answer's evidence (best effort: a Redis failure leaves the share as it was). */
  async observe(cls: RequestClass, status: number, headers: Headers | undefined): Promise<void> {
    const now = Date.now();
    const h = headers ? readRateLimitHeaders(headers, now) : {};
    const is429 = status === 429;
    const lane = this.laneOf(cls, h.limit, h.resetAt, now);
    const { limit, windowMs } = this.limits[lane]!;
    if (!is429 && h.remaining === undefined && h.limit === undefined) {
      // The answer says nothing: a lowered share needs the script for its steps back up, a full one now and then.
      const quiet = Math.min(QUIET_STEP_MS, (this.opts.startStepMs ?? defaults.rateStartStepMs) / 2);
      if (now - this.lastStep[lane] < (this.local[lane] >= 1 ? QUIET_FULL_MS : quiet)) return;
    }
    this.lastStep[lane] = now;
    const reply = (await runScript(this.redis, SHARE, [
      4,
      this.keys.budgetShare(lane),
      this.keys.budgetSent(lane),
      this.learntKey(lane),
      this.keys.budgetHold(lane),
      is429 ? 1 : 0,
      h.limit ?? -1,
      h.remaining ?? -1,
      h.resetAt ?? -1,
      now,
      limit,
      windowMs,
      this.budgets.headroom,
      this.floor,
      defaults.shareStep,
      defaults.shareStepsPerWindow,
      defaults.shareDecrease,
      shareTtlMs(windowMs),
      sentBucketMs(windowMs),
      PROBE_STEP,
      WINDOW_BURST_PART,
      defaults.rateStartProof,
      learntTtlMs(windowMs),
      this.opts.startStep ?? startStep(),
      PROBE_QUIET_ABOVE_CEILING,
      this.opts.startStepMs ?? defaults.rateStartStepMs,
      defaults.rateCrossKeep,
      this.opts.yieldStepMs ?? defaults.rateYieldStepMs,
      this.pulse(),
    ])) as [string, string, number, string];
    const factor = Number(reply[0]);
    const previous = this.local[lane];
    this.local[lane] = factor;
    if (Number(reply[2]) === 1) {
      this.opts.onChange?.({
        lane,
        factor,
        previous,
        reason: reply[1] as ShareReason,
        otherPerMinute: reply[3] === '' ? null : Number(reply[3]),
      });
    }
  }

  /** Reads every lane's share as all processes left it. */
  async refresh(): Promise<void> {
    const pipe = this.redis.pipeline();
    for (const lane of LANES) pipe.hget(this.keys.budgetShare(lane), 'f');
    const replies = (await pipe.exec()) ?? [];
    LANES.forEach((lane, i) => {
      const f = Number(replies[i]?.[1] ?? 1);
      this.local[lane] = f > 0 && f <= 1 ? f : 1;
    });
  }

  /** Requests a second the budgets let this program send now (every process together), each lane at its share. */
  ratePerSecond(): number {
    return lanesRatePerSecond(this.budgets, (lane) => this.local[lane]);
  }
}
