import type { PlannedRepair, RepairRule } from '../../src/ops/repair-rule.js';
import { stockTargetSchema, type StockTarget } from './repair-stock.js';

/**
 * `reconcile --repair --include-stock` of a count: one variance per location sets each drifted (location, product)
 * back to the count less what synced orders shipped since. Only with the option: other activity in the account
 * (receipts, returns, stock moved in the web application) can explain a difference.
 */
export const stockRepair: RepairRule = {
  optIn: {
    option: 'include-stock',
    why: 'stock is repaired only with --include-stock: other activity in the account can explain a difference',
  },
  plan(drifts) {
    const repairs: PlannedRepair[] = [];
    const targets: StockTarget[] = [];
    for (const d of drifts) {
      const t = stockTargetSchema.safeParse(d.target);
      if (!t.success) continue;
      targets.push(t.data);
      const by = -(d.difference ?? 0);
      repairs.push({ drift: d, what: `a variance of ${by > 0 ? '+' : ''}${by} back to ${d.synced}` });
    }
    const planned = new Set(repairs.map((r) => r.drift));
    const left = drifts
      .filter((d) => !planned.has(d))
      .map((d) => ({ drift: d, action: 'by-hand' as const, why: 'reconcile named no on-hand to set it back to' }));
    return { repairs, left, ...(targets.length ? { targets } : {}) };
  },
};
