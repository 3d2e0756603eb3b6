import type { CatalogApi } from '../../../src/catalog/types.js';
import { BadRecordError, PermanentJobError } from '../../../src/queue/job-errors.js';
import type { JobContext, JobResult } from '../../../src/queue/job-context.js';
import { deltaOf, type StockAdjustment } from './stock-adjustment-record.js';

/** The fifth kind's own failure code, with its hint (declared by the kind, found by `jobs show`). */
export const NOT_A_LOCATION = 'ADJUSTMENT_NOT_A_LOCATION';
export const adjustmentFailures = {
  [NOT_A_LOCATION]: 'An adjustment moves stock at a location inside a magazine; name the location upstream, then retry.',
};

/** The adjustment's location and products as the service knows them. */
async function resolve(catalog: CatalogApi, record: StockAdjustment) {
  const found = await catalog.facility(record.location);
  if (!found.ok || found.facility.kind !== 'location')
    throw new PermanentJobError(
      NOT_A_LOCATION,
      `adjustment ${record.adjustmentId}: "${record.location}" is not a location of the service`,
      adjustmentFailures[NOT_A_LOCATION],
      { adjustmentId: record.adjustmentId, location: record.location },
    );
  const products = await catalog.products(record.items.map((i) => i.productId));
  const lines = record.items.map((item, i) => {
    const product = products.get(item.productId);
    if (!product) throw new BadRecordError(record.adjustmentId, `items.${i}.productId`, `no product ${item.productId} in the service`);
    return { productUrl: product.productUrl, quantity: deltaOf(record, item.quantity) };
  });
  return { facilityUrl: found.facility.facilityUrl, lines };
}

/** One inventory variance with the record's deltas (test-only: no read-back of a lost answer). */
export async function adjustStock(record: StockAdjustment, ctx: JobContext): Promise<JobResult> {
  const { facilityUrl, lines } = await resolve(ctx.catalog, record);
  const variance = await ctx.client.createVariance({
    // The service takes variances at 19:00 of their day only.
    physicalInventoryDate: `${record.adjustedDate}T19:00:00.000`,
    statusId: 'PHSCL_INV_COMMITTED',
    physicalInventoryTypeId: 'FACILITY',
    facilityUrl,
    inventoryItemVarianceList: lines.map((l) => ({ facilityUrl, productUrl: l.productUrl, quantityOnHandVar: l.quantity })),
  });
  return {
    outcome: 'synced',
    summary: `adjustment ${record.adjustmentId} (${record.reason}) posted as one variance of ${lines.length} line(s)`,
    details: { varianceUrl: variance.physicalInventoryUrl, facilityUrl, lines },
  };
}
