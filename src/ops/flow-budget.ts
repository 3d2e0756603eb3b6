import type { Budgets } from '../../config/read-config.js';

const MINUTE = 60_000;
const HOUR_MINUTES = 60;
/** A gap between two samples longer than this leaves the minutes between unknown (null), not guessed. */
const MAX_GAP_MINUTES = 60;

export const BUDGET_CLASSES = ['post', 'get', 'collection'] as const;
export type BudgetClass = (typeof BUDGET_CLASSES)[number];

export type Point = [t: number, value: number | null];

/** What the budget's series read of a minute's sample (flow-metrics.ts FlowSample). */
export interface BudgetSample {
  t: number;
  requests: Record<BudgetClass, number>;
  waitedMs?: Record<BudgetClass, number>;
  holds?: Record<BudgetClass, number>;
  shares?: Record<BudgetClass, number>;
  /** The counters at the minute's first look. */
  first?: Partial<Pick<BudgetSample, 'requests' | 'waitedMs' | 'holds'>>;
}

/** One request class as the dashboard's chart and table both show it, in the one unit its budget is set in. */
export interface BudgetSeries {
  /** A minute (post, get: INVENTORY_*_PER_MINUTE) or an hour (collection: INVENTORY_COLLECTION_PER_HOUR). */
  unit: 'min' | 'h';
  /** The configured budget, in the unit; null when the service is not configured. */
  limit: number | null;
  /** Per minute: the requests sent in it (unit min), or in the hour up to its end (unit h); null where unknown. */
  points: Point[];
  /** The rate the program allowed itself each minute (configured × headroom × its share), in the unit. */
  effective: Point[];
  /** The last 60 minutes, from the same samples: requests, ms waited for budget, 429 holds; null before any sample. */
  lastHour: { requests: number; waitedMs: number; holds: number } | null;
}

type Counter = 'requests' | 'waitedMs' | 'holds';

/**
 * Per minute of `minutes` (and the hour before them), how much a counter of the class grew since the sample before:
 * the minute's own requests when sampled every minute, a gap's when not (up to MAX_GAP_MINUTES), and from the minute's
 * first look when no minute before it was sampled; null when unknown.
 */
function deltas(samples: ReadonlyMap<number, BudgetSample>, first: number, last: number, cls: BudgetClass, c: Counter) {
  const out = new Map<number, number | null>();
  let prev: BudgetSample | undefined;
  for (const s of [...samples.values()].sort((a, b) => a.t - b.t)) {
    if (s.t > last) break;
    const v = s[c]?.[cls];
    const near = prev && s.t - prev.t <= MAX_GAP_MINUTES * MINUTE ? prev[c]?.[cls] : undefined;
    const from = near ?? s.first?.[c]?.[cls];
    if (s.t >= first) out.set(s.t, v !== undefined && from !== undefined ? Math.max(0, v - from) : null);
    prev = s;
  }
  return out;
}

/** The sum of the known values, or null when none is known. */
function sumKnown(values: Array<number | null | undefined>): number | null {
  const known = values.filter((v): v is number => typeof v === 'number');
  return known.length ? known.reduce((a, b) => a + b, 0) : null;
}

/**
 * A minute the deployment ran in which the account was not sampled (flow-minutes.ts): none of its counters grew there;
 * its share is the last sampled one's (shares change only in a turn, and a turn samples itself).
 */
function quietMinutes(
  samples: ReadonlyMap<number, BudgetSample>,
  ran: ReadonlySet<number>,
  counts: ReadonlyArray<Map<number, number | null>>,
): Map<number, BudgetSample['shares']> {
  const shares = new Map<number, BudgetSample['shares']>();
  let last: BudgetSample['shares'];
  const sampled = [...samples.values()].sort((a, b) => a.t - b.t);
  for (const t of [...ran].sort((a, b) => a - b)) {
    while (sampled[0] && sampled[0].t <= t) last = sampled.shift()!.shares ?? last;
    if (samples.has(t)) continue;
    for (const m of counts) m.set(t, 0);
    shares.set(t, last);
  }
  return shares;
}

/**
 * The budget series of every class over `minutes` (epoch ms of minute starts, oldest first), from the samples and the
 * minutes the deployment ran (`ran`: those not sampled had no requests).
 */
export function budgetSeries(
  samples: ReadonlyMap<number, BudgetSample>,
  minutes: readonly number[],
  budgets: Budgets | undefined,
  ran: ReadonlySet<number> = new Set(),
): Record<BudgetClass, BudgetSeries> {
  const to = minutes.at(-1) ?? 0;
  const first = (minutes[0] ?? to) - HOUR_MINUTES * MINUTE;
  const quiet = new Set([...ran].filter((t) => t >= first && t <= to));
  const out = {} as Record<BudgetClass, BudgetSeries>;
  for (const cls of BUDGET_CLASSES) {
    const unit = cls === 'collection' ? 'h' : 'min';
    const limit = budgets
      ? cls === 'collection'
        ? budgets.collectionPerHour
        : cls === 'post'
          ? budgets.postPerMinute
          : budgets.getPerMinute
      : null;
    const [requests, waited, holds] = (['requests', 'waitedMs', 'holds'] as const).map((c) => deltas(samples, first, to, cls, c));
    const quietShares = quietMinutes(samples, quiet, [requests!, waited!, holds!]);
    const hourTo = (m: Map<number, number | null>, t: number) =>
      sumKnown(Array.from({ length: HOUR_MINUTES }, (_, i) => m.get(t - i * MINUTE)));
    const points: Point[] = minutes.map((t) => [t, unit === 'h' ? hourTo(requests!, t) : (requests!.get(t) ?? null)]);
    const effective: Point[] = minutes.map((t) => {
      const share = (samples.get(t) ? samples.get(t)!.shares : quietShares.get(t))?.[cls];
      return [t, limit === null || share === undefined ? null : Math.round(limit * (budgets?.headroom ?? 1) * share * 10) / 10];
    });
    const hour = hourTo(requests!, to);
    const lastHour = hour === null ? null : { requests: hour, waitedMs: hourTo(waited!, to) ?? 0, holds: hourTo(holds!, to) ?? 0 };
    out[cls] = { unit, limit, points, effective, lastHour };
  }
  return out;
}
