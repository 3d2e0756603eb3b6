import type { CatalogApi, CatalogProduct } from '../../src/catalog/types.js';
import type { BomRecord } from './bom-stream.js';
import { BadRecordError } from '../../src/queue/job-errors.js';
import type { BomItems } from './bom-items.js';

export interface ResolvedBom {
  product: CatalogProduct;
  /** Wanted components, productUrl -> quantity, in record order. */
  items: BomItems;
}

/** Resolves a BOM's product and components against the catalog; every problem is a BadRecordError naming the field. */
export async function resolveBom(catalog: CatalogApi, record: BomRecord): Promise<ResolvedBom> {
  const id = record.productId;
  const ids = new Set([id, ...record.components.map((c) => c.productId)]);
  const found = await catalog.products([...ids]);
  const product = found.get(id);
  if (!product) throw new BadRecordError(id, 'productId', `no product ${id} in the service's product collection`);
  const seen = new Map<string, number>();
  const items: BomItems = new Map();
  record.components.forEach((c, i) => {
    const field = `components.${i}.productId`;
    if (c.productId === id) throw new BadRecordError(id, field, `${c.productId} cannot be a component of itself`);
    const before = seen.get(c.productId);
    if (before !== undefined) throw new BadRecordError(id, field, `${c.productId} is listed twice (also components.${before}); send one line per component`);
    seen.set(c.productId, i);
    const component = found.get(c.productId);
    if (!component) throw new BadRecordError(id, field, `unknown component: no product ${c.productId} in the service's product collection`);
    items.set(component.productUrl, c.quantity);
  });
  return { product, items };
}
