import type { Budgets } from '../../../config/read-config.js';
import type { RequestClass } from '../service-api.js';

/**
 * A budget a request spends: its class's, and `total` (one limit for every request together) when the
 * account has one. A collection GET spends `collection` and `get` as well.
 */
export type BudgetLane = RequestClass | 'total';
export const CLASSES: readonly RequestClass[] = ['post', 'get', 'collection'];
export const LANES: readonly BudgetLane[] = [...CLASSES, 'total'];
/** The total budget's window: a 429 with a reset further away than this cannot be the total's. */
export const TOTAL_WINDOW_MS = 60_000;

/** Window and limit of each lane (`total` only when the account has one). */
export function laneLimits(b: Budgets): Partial<Record<BudgetLane, { limit: number; windowMs: number }>> {
  return {
    post: { limit: b.postPerMinute, windowMs: 60_000 },
    get: { limit: b.getPerMinute, windowMs: 60_000 },
    collection: { limit: b.collectionPerHour, windowMs: 3_600_000 },
    ...(b.requestsPerMinute === undefined ? {} : { total: { limit: b.requestsPerMinute, windowMs: TOTAL_WINDOW_MS } }),
  };
}

/**
 * Requests a second the budgets allow, each lane at `factor(lane)` of itself: the tighter of the total and the busier
 * class (a job of the order kind spends POSTs, a BOM job mostly GETs).
 */
export function lanesRatePerSecond(b: Budgets, factor: (lane: BudgetLane) => number): number {
  const l = laneLimits(b);
  const rate = (lane: BudgetLane) => {
    const x = l[lane];
    return x ? (x.limit / (x.windowMs / 1000)) * b.headroom * factor(lane) : Infinity;
  };
  return Math.min(rate('total'), Math.max(rate('post'), rate('get')));
}
