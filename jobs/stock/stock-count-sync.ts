import { defaults } from '../../config/defaults.js';
import { readStockOnHand } from '../../src/catalog/stock-on-hand.js';
import type { StockCountRecord } from './stock-count-record.js';
import { applyCount } from './apply-count.js';
import { previewCount } from './count-preview.js';
import { previewStockRepair, repairStock } from './repair-stock.js';
import { countVersionHash } from './count-version-hash.js';
import { unfinishedElsewhere } from './count-progress.js';
import { withRedisLocks } from '../../src/redis/redis-lock.js';
import { resolveCount, unknownProductError } from './resolve-count.js';
import { queueSplitRows, withSplitRows } from './split-rows.js';
import { stockKeys } from './stock-keys.js';
import type { ServiceApi } from '../../src/client/service-api.js';
import type { JobPart } from '../../src/queue/runner-kind.js';

/** The job of the stock counts: how a record is synced, and its dry run. */
export type StockCountJob = Required<Pick<JobPart<StockCountRecord>, 'process' | 'preview'>>;

export interface StockCountJobOptions {
  /** Age after which a run's snapshot is read again, in ms. Default: defaults.stockSnapshotMaxAgeSeconds. */
  snapshotMaxAgeMs?: number;
  /** Life of the per-location and snapshot locks, in ms. Default: defaults.stockLocationLockMs. */
  lockTtlMs?: number;
  /** How long a count waits for its location (or for another job's snapshot read), in ms. Default 120 000. */
  lockWaitMs?: number;
}

/**
 * Stock counts (docs/records.md `stock-counts`) as inventory variances dated {countDate}T19:00, each
 * difference applied exactly once, each (location, product) set by its newest count. Design: docs/stock-sync.md.
 */
export function stockCountJob(opts: StockCountJobOptions = {}): StockCountJob {
  const lockTtlMs = opts.lockTtlMs ?? defaults.stockLocationLockMs;
  const lockWaitMs = opts.lockWaitMs ?? defaults.stockLockWaitMs;
  const snapshot = {
    readStock: (client: ServiceApi) => readStockOnHand(client),
    maxAgeMs: opts.snapshotMaxAgeMs ?? defaults.stockSnapshotMaxAgeSeconds * 1000,
    readWaitMs: lockWaitMs,
    lockTtlMs,
  };
  return {
    async process(record, ctx) {
      // A stock repair (reconcile --repair --include-stock) sets the on-hand it names; a plain resync is the count again.
      if (ctx.fromService?.targets !== undefined) return repairStock(record, ctx);
      const resolved = await resolveCount(ctx.catalog, record);
      // A row whose product the service lacks waits alone, as its own count, and a bad row fails alone; a count with
      // no other row waits whole.
      const whole = resolved.unknown.length === record.items.length;
      const split = await queueSplitRows(ctx, record, whole ? [] : resolved.unknown);
      if (whole) throw unknownProductError(ctx.catalog, record, resolved.unknown);
      const hash = countVersionHash(record);
      const sk = stockKeys(ctx.keys);
      const loc = resolved.location.facilityUrl;
      // A correction that moved the count to another location also needs the old one to settle and drop its plan.
      const elsewhere = await unfinishedElsewhere(ctx.redis, ctx.keys, record.countId, hash, loc);
      // A row split off a count plans on stock read after its product appeared: an older read may predate the product.
      const fresh = record.splitFrom === undefined ? snapshot : { ...snapshot, notBefore: Date.now() };
      const result = await withRedisLocks(
        ctx.redis,
        [loc, ...(elsewhere ? [elsewhere] : [])].map((f) => sk.locationLock(f)),
        (lock) => applyCount({ ctx, record, hash, resolved, lock, snapshot: fresh }),
        { ttlMs: lockTtlMs, waitMs: lockWaitMs },
      );
      return withSplitRows(result, split);
    },
    preview: (record, ctx) => (ctx.fromService?.targets !== undefined ? previewStockRepair(record, ctx) : previewCount(record, ctx)),
  };
}
