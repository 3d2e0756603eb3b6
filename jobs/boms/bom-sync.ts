import { isServiceError } from '../../src/client/errors.js';
import type { Product, UpdateProductBody } from '../../src/client/schemas.js';
import { bomStream, type BomRecord } from './bom-stream.js';
import { ConflictError } from '../../src/queue/job-errors.js';
import type { JobContext, JobKind, JobResult } from '../../src/queue/job-kind.js';
import { bomItemsOf, firstBomEntry, sameBom, type BomItems } from './bom-items.js';
import { resolveBom } from './resolve-bom.js';

function matches(product: Product, wanted: BomItems): boolean {
  const entry = firstBomEntry(product);
  return entry !== undefined && sameBom(bomItemsOf(entry), wanted);
}

/** The bill as the service should hold it after the update; the product itself is the job's only progress. */
async function syncBom(record: BomRecord, ctx: JobContext): Promise<JobResult> {
  const { product: found, items } = await resolveBom(ctx.catalog, record);
  const id = record.productId;
  const product = await ctx.client.getProduct(found.productUrl);
  const entry = firstBomEntry(product);
  const details = { productUrl: found.productUrl, components: items.size };
  if (entry && sameBom(bomItemsOf(entry), items)) {
    return { outcome: 'unchanged', summary: `BOM of ${id} already matches (${items.size} components); no write`, details };
  }
  if (entry && !entry.productAssocUrl) {
    throw new ConflictError(
      `BOM of ${id}: the product's first MANUF_COMPONENT entry has no productAssocUrl, so it cannot be updated without creating an extra entry`,
      'Check the product in the service; the job can be retried once the entry shows its productAssocUrl.',
      details,
    );
  }
  const body: UpdateProductBody = {
    // From the catalog: a product answer need not carry them (service-behaviors.md).
    productId: found.productId,
    productUrl: found.productUrl,
    productAssocList: [
      {
        productAssocTypeId: 'MANUF_COMPONENT',
        // Without the URL the service adds an entry; it may be left out only when the product has none.
        ...(entry ? { productAssocUrl: entry.productAssocUrl } : {}),
        productAssocItemList: [...items].map(([productUrl, quantity]) => ({ productUrl, quantity })),
      },
    ],
  };
  const action = entry ? 'updated' : 'created';
  try {
    const updated = await ctx.client.updateProduct(found.productUrl, body);
    if (updated.productAssocList.length && !matches(updated, items)) {
      throw new ConflictError(
        `BOM of ${id}: the service answered the update with a different first MANUF_COMPONENT entry`,
        'Compare the product in the service with the record; retry the job once the product is as expected.',
        details,
      );
    }
  } catch (err) {
    if (!isServiceError(err) || err.outcome === 'not-applied') throw err;
    // A lost answer: read the product back before anything is sent again (a second create would add an entry).
    ctx.note(`BOM of ${id}: the update's answer was lost (${err.code}); reading the product back`);
    if (!matches(await ctx.client.getProduct(found.productUrl), items)) throw err;
    ctx.note(`BOM of ${id}: the product shows the new bill; the update applied`);
  }
  return { outcome: 'synced', summary: `BOM of ${id}: first MANUF_COMPONENT entry ${action} (${items.size} components)`, details: { ...details, action } };
}

/** Bills of materials (upstream-feed.md `boms`) as the product's first MANUF_COMPONENT entry. Design: docs/boms.md. */
export const bomJob: JobKind<BomRecord> = {
  ...bomStream,
  process: syncBom,
};
