import type { RedisKeys } from '../../src/redis/connection.js';

/** Redis keys of the stock sync, under the program's prefix (docs/stock-sync.md). */
export function stockKeys(keys: RedisKeys) {
  const p = `${keys.prefix}:stock`;
  return {
    /** Progress of one stock count, keyed on countId, as a hash. */
    count: (countId: string) => `${keys.prefix}:count:${countId}`,
    /** Meta of the current on-hand snapshot: id, readAt, and `v:{facilityUrl}` version copies. */
    snapshotMeta: `${p}:snapshot`,
    /** Prefix of the snapshot's per-location hashes: `{snapshotPrefix}{id}:{facilityUrl}`. */
    snapshotPrefix: `${p}:snapshot:`,
    /** One location's on-hand stock in one snapshot (productUrl -> quantity). */
    snapshotLocation: (id: string, facilityUrl: string) => `${p}:snapshot:${id}:${facilityUrl}`,
    /** Versions per location, bumped by every recorded variance (facilityUrl -> n). */
    versions: `${p}:versions`,
    /** The counts of a location whose plans are not finished (a set of countIds). */
    open: (facilityUrl: string) => `${p}:open:${facilityUrl}`,
    /** Per location, the count that set each product (productUrl -> ProductMark JSON; jobs/stock/product-marks.ts). */
    marks: (facilityUrl: string) => `${p}:marks:${facilityUrl}`,
    /** Counter giving each plan its arrival order (the tie-break between counts of one date). */
    seq: `${p}:seq`,
    /** Prefix of the known variance URLs of a location and date: `{variancesPrefix}{facilityUrl}:{date}`. */
    variancesPrefix: `${p}:variances:`,
    variances: (facilityUrl: string, countDate: string) => `${p}:variances:${facilityUrl}:${countDate}`,
    /** Lock serialising snapshot reads across processes. */
    snapshotLock: keys.lock('stock-snapshot', 'read'),
    /** Lock serialising the counts of one location. */
    locationLock: (facilityUrl: string) => keys.lock('location', facilityUrl),
  };
}

export type StockKeys = ReturnType<typeof stockKeys>;
