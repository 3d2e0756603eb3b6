import { isServiceError } from '../../src/client/answers/errors.js';
import type { Product } from '../../src/client/answers/schemas.js';
import type { BomRecord } from './bom-record.js';
import { ConflictError } from '../../src/queue/job-errors.js';
import type { JobContext, JobResult } from '../../src/queue/job-context.js';
import { bomItemsOf, firstBomEntry, sameBom, type BomItems } from './bom-items.js';
import { bomUpdate } from './bom-update.js';
import { resolveBom } from './resolve-bom.js';

function matches(product: Product, wanted: BomItems): boolean {
  const entry = firstBomEntry(product);
  return entry !== undefined && sameBom(bomItemsOf(entry), wanted);
}

/** The bill as the service should hold it after the update; the product itself is the job's only progress. */
export async function syncBom(record: BomRecord, ctx: JobContext): Promise<JobResult> {
  const { product: found, items } = await resolveBom(ctx.catalog, record);
  const id = record.productId;
  const product = await ctx.client.getProduct(found.productUrl);
  const details = { productUrl: found.productUrl, components: items.size };
  const update = bomUpdate(id, found, product, items);
  if (update.action === 'matches') {
    return { outcome: 'unchanged', summary: `BOM of ${id} already matches (${items.size} components); no write`, details };
  }
  const { action, body } = update;
  try {
    const updated = await ctx.client.updateProduct(found.productUrl, body);
    if (updated.productAssocList.length && !matches(updated, items)) {
      throw new ConflictError(
        `BOM of ${id}: the service answered the update with a different first MANUF_COMPONENT entry`,
        'Compare the product in the service with the record; retry the job once the product is as expected.',
        details,
        'the service answered the update with a different first MANUF_COMPONENT entry',
      );
    }
  } catch (err) {
    if (!isServiceError(err) || err.outcome === 'not-applied') throw err;
    // A lost answer: read the product back before anything is sent again (a second create would add an entry).
    ctx.note(`BOM of ${id}: the update's answer was lost (${err.code}); reading the product back`);
    if (!matches(await ctx.client.getProduct(found.productUrl), items)) throw err;
    ctx.note(`BOM of ${id}: the product shows the new bill; the update applied`);
  }
  return {
    outcome: 'synced',
    summary: `BOM of ${id}: first MANUF_COMPONENT entry ${action} (${items.size} components)`,
    details: { ...details, action },
  };
}
