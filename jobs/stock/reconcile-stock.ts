import type { RedisConnection as Redis } from '../../src/redis/connection.js';
import type { CatalogApi } from '../../src/catalog/types.js';
import { readStockOnHand } from '../../src/catalog/stock-on-hand.js';
import { stockCountRecordSchema } from './stock-count-record.js';
import type { RedisKeys } from '../../src/redis/connection.js';
import { loadProgress } from './count-progress.js';
import { countVersionHash } from './count-version-hash.js';
import type { SyncedRecord } from '../../src/ops/reconcile-synced.js';
import type { ServiceView } from '../../src/ops/reconcile-service.js';
import type { Drift, Unchecked } from '../../src/ops/reconcile-types.js';
import type { ReconcileRule } from '../../src/ops/reconcile-rule.js';
import type { StockEffect } from '../../src/ops/stock-effect.js';

/** The newest synced count of one (location, product). */
interface CountedPair {
  countId: string;
  jobId: string;
  countDate: string;
  /** When the count's stock was read (the snapshot's start): shipments after it are not in the count's variance. */
  since: number;
  location: string;
  facilityUrl: string;
  productId: string;
  productUrl: string;
  quantity: number;
}

/** Epoch ms a snapshot's read started, from its id (`{readStartedAt base 36}-{random}`). */
function snapshotTime(snapshotId: string | undefined): number | undefined {
  const t = snapshotId ? parseInt(snapshotId.split('-')[0] ?? '', 36) : NaN;
  return Number.isFinite(t) && t > 0 ? t : undefined;
}

async function countedPairs(
  counts: Map<string, SyncedRecord>,
  catalog: CatalogApi,
  redis: Redis,
  keys: RedisKeys,
  unchecked: Unchecked[],
): Promise<Map<string, CountedPair>> {
  const pairs = new Map<string, CountedPair>();
  for (const s of counts.values()) {
    const parsed = stockCountRecordSchema.safeParse(s.record);
    if (!parsed.success) continue;
    const record = parsed.data;
    const p = await loadProgress(redis, keys, record.countId);
    // The progress names the version applied last; a count superseded before all its chunks posted is no reference.
    if ((p.state !== 'applied' && p.state !== 'unchanged') || !p.facilityUrl) continue;
    if (p.hash !== countVersionHash(record)) continue;
    const products = await catalog.products(record.items.map((i) => i.productId));
    const since = snapshotTime(p.snapshotId) ?? s.processedOn;
    for (const item of record.items) {
      const product = products.get(item.productId);
      if (!product) {
        unchecked.push({
          stream: 'stock-counts',
          key: record.countId,
          reason: `product ${item.productId} is no longer in the service's product collection`,
        });
        continue;
      }
      const k = `${p.facilityUrl} ${product.productUrl}`;
      const before = pairs.get(k);
      if (before && (before.countDate > record.countDate || (before.countDate === record.countDate && before.since > since))) continue;
      pairs.set(k, {
        countId: record.countId,
        jobId: s.jobId,
        countDate: record.countDate,
        since,
        location: record.location,
        facilityUrl: p.facilityUrl,
        productId: item.productId,
        productUrl: product.productUrl,
        quantity: item.quantity,
      });
    }
  }
  return pairs;
}

const near = (a: number, b: number) => Math.abs(a - b) < 1e-6;
const qty = (n: number) => String(Math.round(n * 1e6) / 1e6);

/**
 * Each counted (location, product) against the stock on hand (one read of the inventory item collection): on hand
 * should be the newest synced count plus what synced records of every kind moved there (shipped, written off, found)
 * since that count's stock was read.
 */
export async function reconcileStock(
  counts: Map<string, SyncedRecord>,
  effects: readonly StockEffect[],
  deps: { catalog: CatalogApi; view: ServiceView; redis: Redis; keys: RedisKeys },
  unchecked: Unchecked[],
): Promise<{ drifts: Drift[]; pairs: number }> {
  const pairs = await countedPairs(counts, deps.catalog, deps.redis, deps.keys, unchecked);
  if (pairs.size === 0) return { drifts: [], pairs: 0 };
  // One read of the inventory item collection per run, shared with any rule that reads it too.
  const stock = await deps.view.read('inventoryitem', (client, opts) => readStockOnHand(client, opts));
  const drifts: Drift[] = [];
  for (const c of pairs.values()) {
    const moves: string[] = [];
    let moved = 0;
    for (const e of effects) {
      if (e.at <= c.since || e.facilityUrl !== c.facilityUrl || e.productUrl !== c.productUrl) continue;
      moved += e.quantity;
      moves.push(`${e.stream} ${e.key} ${e.quantity > 0 ? '+' : ''}${qty(e.quantity)}`);
    }
    const expected = c.quantity + moved;
    const onHand = stock.get(c.facilityUrl)?.get(c.productUrl) ?? 0;
    if (near(onHand, expected)) continue;
    drifts.push({
      stream: 'stock-counts',
      kind: 'stock-differs',
      key: c.countId,
      jobId: c.jobId,
      field: `quantityOnHand of ${c.productId} at ${c.location}`,
      service: qty(onHand),
      synced: qty(expected),
      difference: Math.round((onHand - expected) * 1e6) / 1e6,
      url: c.facilityUrl,
      target: { facilityUrl: c.facilityUrl, productUrl: c.productUrl, productId: c.productId, quantity: expected },
      detail:
        `counted ${qty(c.quantity)} on ${c.countDate}` +
        `${moves.length ? `; moved since by synced records: ${moves.join(', ')}` : '; no synced record moved it since'}`,
    });
  }
  return { drifts, pairs: pairs.size };
}

/** `reconcile` of the stock counts: each counted (location, product) against the stock on hand, net of what moved since. */
export const stockReconcile: ReconcileRule = {
  counts: ['stockPairs'],
  describe: (c) => `${c.stockPairs} counted (location, product) pairs`,
  async run(ctx) {
    // What the synced records of every kind moved since a count (sales, write-offs) is not drift.
    const r = await reconcileStock(await ctx.synced(ctx.stream), await ctx.stockEffects(), ctx, ctx.unchecked);
    return { drifts: r.drifts, checked: { stockPairs: r.pairs } };
  },
};
