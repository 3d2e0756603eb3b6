import type { Product } from '../../src/client/answers/schemas.js';
import type { PreviewResult } from '../../src/queue/record-plan.js';
import type { PreviewContext } from '../../src/queue/job-context.js';
import type { BomRecord } from './bom-record.js';
import { bomUpdate } from './bom-update.js';
import { bomItemsOf, firstBomEntry } from './bom-items.js';
import { resolveBom } from './resolve-bom.js';

/** Where the URL of an entry created earlier in the same run goes, before it exists. */
export const PRODUCT_ASSOC_URL = '{productAssocUrl}';

/** productUrl -> quantity as productId -> quantity, to show a bill to people. */
async function named(ctx: PreviewContext, items: Map<string, number>): Promise<Array<{ productId: string; quantity: number }>> {
  return Promise.all([...items].map(async ([url, quantity]) => ({ productId: (await ctx.catalog.productIdByUrl(url)) ?? url, quantity })));
}

/**
 * The dry run of a BOM: the product is read (as the job reads it) and the job's own decision says whether its first
 * MANUF_COMPONENT entry already matches, is replaced (by its productAssocUrl) or is created. A second BOM of the
 * same product in this run is decided against what the first one would leave.
 */
export async function bomPreview(record: BomRecord, ctx: PreviewContext): Promise<PreviewResult> {
  const { product: found, items } = await resolveBom(ctx.catalog, record);
  const id = record.productId;
  const written = ctx.memo('boms', () => new Map<string, Product>());
  const product = written.get(id) ?? (await ctx.client.getProduct(found.productUrl));
  const before = firstBomEntry(product);
  const update = bomUpdate(id, found, product, items);
  const details = {
    productUrl: found.productUrl,
    ...(before?.productAssocUrl ? { productAssocUrl: before.productAssocUrl } : {}),
    current: before ? await named(ctx, bomItemsOf(before)) : [],
    wanted: await named(ctx, items),
  };
  if (update.action === 'matches')
    return { outcome: 'unchanged', summary: `BOM of ${id}: already matches (${items.size} components); no call`, calls: [], details };
  const entry = update.body.productAssocList[0]!;
  written.set(id, { ...product, productAssocList: [{ ...entry, productAssocUrl: entry.productAssocUrl ?? PRODUCT_ASSOC_URL }] });
  const what =
    update.action === 'updated'
      ? `replace the first MANUF_COMPONENT entry ${before?.productAssocUrl}`
      : 'create the first MANUF_COMPONENT entry';
  return {
    outcome: 'writes',
    summary: `BOM of ${id}: ${what} (${items.size} components)`,
    calls: [{ method: 'POST', path: found.productUrl, body: update.body, what }],
    details: { ...details, action: update.action === 'updated' ? 'replace' : 'create' },
  };
}
