import type { Budgets } from '../../config/read-config.js';
import type { ShareReason } from '../client/budget/share.js';
import { readShares, shareReasonText } from '../client/budget/share-status.js';
import { type RedisConnection as Redis, redisKeys } from '../redis/connection.js';

/** Each request class's budget as `status` and the dashboard show it (src/ops/status-report.ts). */
export interface BudgetStatus {
  /** post, get, collection, or total (every request, when the account has one such limit). */
  cls: string;
  /** The budget, e.g. "120/min", when the configuration names it. */
  limit: string | null;
  /** Requests that took budget, since the counters began (shared by every process of the prefix). */
  requests: number;
  /** Total ms requests waited for budget. */
  waitedMs: number;
  /** 429 answers that held the class. */
  holds: number;
  /** Requests already scheduled ahead of now: above 0 the class is running at its limit. */
  reservedAhead: number;
  /** When a 429 hold on the class ends (ISO), or null. */
  heldUntil: string | null;
  /** Requests a minute the configured budget allows (an hourly one divided by 60), or null when not configured. */
  configuredPerMinute: number | null;
  /** Requests a minute the program allows itself now: configured × headroom × share; null when not configured. */
  effectivePerMinute: number | null;
  /** Share of the configured budget taken now (1: all of it; lower while another client spends it). */
  share: number;
  /**
   * Why effective is what it is: configured, shared-429, shared-remaining, service-limit, probing, floor,
   * window-remaining, slow-start, remembered.
   */
  shareReason: ShareReason;
  /** The same in words. */
  why: string;
  /** Requests a minute the account's other clients spend, from the service's headers; null when unknown. */
  othersPerMinute: number | null;
}

/** The request classes, then `total`: one budget every request spends, on accounts that have one. */
const BUDGET_LANES = ['post', 'get', 'collection', 'total'] as const;

type Window = [limit: number, windowMs: number, unit: string];

function budgetWindows(b: Budgets): Partial<Record<(typeof BUDGET_LANES)[number], Window>> {
  return {
    post: [b.postPerMinute, 60_000, '/min'],
    get: [b.getPerMinute, 60_000, '/min'],
    collection: [b.collectionPerHour, 3_600_000, '/h'],
    ...(b.requestsPerMinute === undefined ? {} : { total: [b.requestsPerMinute, 60_000, '/min'] as Window }),
  };
}

/** Each request class's budget: its limit, its use and holds, what the program allows itself now and why. */
export async function budgetStatus(redis: Redis, prefix: string, budgets: Budgets | undefined, now: number): Promise<BudgetStatus[]> {
  const keys = redisKeys(prefix);
  const [stats, shares] = await Promise.all([redis.hgetall(keys.budgetStats()), readShares(redis, keys)]);
  const windows = budgets ? budgetWindows(budgets) : undefined;
  // The total's row shows when the account has one, or when some process spent it (another configuration).
  const lanes = BUDGET_LANES.filter((cls) => cls !== 'total' || windows?.total || Number(stats['requests:total'] ?? 0) > 0);
  return Promise.all(
    lanes.map(async (cls) => {
      const [pttl, tat] = await Promise.all([redis.pttl(keys.budgetHold(cls)), redis.get(keys.budget(cls))]);
      const w = windows?.[cls];
      const interval = w && budgets ? w[1] / (w[0] * budgets.headroom) : undefined;
      const share = shares[cls];
      const ahead = tat && interval ? Math.max(0, Math.floor((Number(tat) - now) / (interval / share.factor))) : 0;
      const perMinute = w ? (w[0] * 60_000) / w[1] : null;
      return {
        cls,
        limit: w ? `${w[0]}${w[2]}` : null,
        requests: Number(stats[`requests:${cls}`] ?? 0),
        waitedMs: Number(stats[`waitedMs:${cls}`] ?? 0),
        holds: Number(stats[`holds:${cls}`] ?? 0),
        reservedAhead: ahead,
        heldUntil: pttl > 0 ? new Date(now + pttl).toISOString() : null,
        configuredPerMinute: perMinute,
        effectivePerMinute: perMinute === null ? null : Math.round(perMinute * budgets!.headroom * share.factor * 10) / 10,
        share: share.factor,
        shareReason: share.reason,
        why: shareReasonText(share),
        othersPerMinute: share.otherPerMinute,
      };
    }),
  );
}
