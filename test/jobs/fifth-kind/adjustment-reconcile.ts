import { textOf } from '../../../src/client/answers/cells.js';
import type { StockEffect } from '../../../src/ops/stock-effect.js';
import type { ReconcileContext, ReconcileRule } from '../../../src/ops/reconcile-rule.js';
import type { Drift } from '../../../src/ops/reconcile-types.js';

interface AdjustmentDetails {
  varianceUrl?: string;
  facilityUrl?: string;
  lines?: Array<{ productUrl: string; quantity: number }>;
}

/** The variance URLs the service lists: the one collection only this kind reads (once per run, counted). */
function varianceUrls(ctx: ReconcileContext): Promise<Set<string>> {
  return ctx.view.read('inventoryvariancesummary', async (client, opts) => {
    const rows = await client.listCollection('inventoryvariancesummary', opts);
    return new Set(rows.map((r) => textOf(r.physicalInventoryUrl)).filter((u): u is string => Boolean(u)));
  });
}

/** `reconcile` of the adjustments: each synced one's variance is still in the service. */
export const adjustmentReconcile: ReconcileRule = {
  counts: ['adjustments'],
  describe: (c) => `${c.adjustments} stock adjustments`,
  async run(ctx) {
    const synced = await ctx.synced(ctx.stream);
    const known = await varianceUrls(ctx);
    const drifts: Drift[] = [];
    for (const s of synced.values()) {
      const url = (s.details as AdjustmentDetails).varianceUrl;
      if (url && !known.has(url))
        drifts.push({
          stream: ctx.stream,
          kind: 'variance-missing',
          key: s.key,
          jobId: s.jobId,
          field: 'variance',
          service: 'none',
          synced: url,
        });
    }
    return { drifts, checked: { adjustments: synced.size } };
  },
};

/** What the synced adjustments moved: each line's delta at its location, when its job finished. */
export async function adjustmentStockEffects(ctx: ReconcileContext): Promise<StockEffect[]> {
  return [...(await ctx.synced(ctx.stream)).values()].flatMap((s) => {
    const d = s.details as AdjustmentDetails;
    return (d.lines ?? []).map((l) => ({
      key: s.key,
      stream: ctx.stream,
      facilityUrl: d.facilityUrl ?? '',
      productUrl: l.productUrl,
      quantity: l.quantity,
      at: s.finishedOn,
    }));
  });
}
