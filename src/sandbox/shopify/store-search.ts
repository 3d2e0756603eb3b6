import type { StoreOrderState } from './store-state.js';

/**
 * The part of Shopify's search syntax the sandbox store reads of `orders(query:)`: `updated_at` and `created_at`
 * compared with `>`, `>=`, `<`, `<=` or `:` to a date or time, quoted or not (`updated_at:>='2026-11-30T18:00:00Z'`);
 * other terms match every order. Until its index catches up, an order is found and sorted by its previous stamp.
 */
const TERM = /(updated_at|created_at):(>=|<=|>|<)?'?"?([0-9T:.+\-Z]+)'?"?/g;

export function matcher(query: string | null | undefined, now: number): (o: StoreOrderState) => boolean {
  const tests: Array<(o: StoreOrderState) => boolean> = [];
  for (const m of (query ?? '').matchAll(TERM)) {
    const [, field, op, value] = m;
    const at = Date.parse(value!.length === 10 ? `${value}T00:00:00Z` : value!);
    if (Number.isNaN(at)) continue;
    const of = (o: StoreOrderState) => (field === 'updated_at' ? searchStamp(o, now) : o.createdAt);
    tests.push((o) => {
      const v = of(o);
      if (op === '>') return v > at;
      if (op === '>=' || op === undefined) return v >= at;
      if (op === '<') return v < at;
      return v <= at;
    });
  }
  return (o) => tests.every((t) => t(o));
}

/** The stamp the search knows an order by now: its last change once the index has caught up, else the one before. */
export function searchStamp(o: StoreOrderState, now: number): number {
  return now >= o.searchAt ? o.updatedAt : o.searchStamp;
}
