import { mappedNote } from '../../src/catalog/mapped-catalog.js';
import type { CatalogApi, CatalogProduct } from '../../src/catalog/types.js';
import type { BomRecord } from './bom-record.js';
import { RECORD_HINT } from '../../src/errors/error-hints.js';
import { BadRecordError, MissingReferenceError } from '../../src/queue/job-errors.js';
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
  if (!product)
    throw new MissingReferenceError(
      id,
      'productId',
      `no product ${id}${mappedNote(catalog, 'product', id)} in the service's product collection`,
      [{ type: 'product', name: id }],
    );
  const seen = new Map<string, number>();
  const items: BomItems = new Map();
  record.components.forEach((c, i) => {
    const field = `components.${i}.productId`;
    if (c.productId === id) throw new BadRecordError(id, field, `${c.productId} cannot be a component of itself`, RECORD_HINT);
    const before = seen.get(c.productId);
    if (before !== undefined)
      throw new BadRecordError(
        id,
        field,
        `${c.productId} is listed twice (also components.${before}); send one line per component`,
        RECORD_HINT,
      );
    seen.set(c.productId, i);
    const component = found.get(c.productId);
    if (!component)
      throw new MissingReferenceError(
        id,
        field,
        `unknown component: no product ${c.productId}${mappedNote(catalog, 'product', c.productId)} in the service's product collection`,
        [{ type: 'product', name: c.productId }],
      );
    // Under MAPPING_FILE two upstream ids can name one service product, or the product itself.
    if (component.productUrl === product.productUrl)
      throw new BadRecordError(
        id,
        field,
        `${c.productId} is the service's product ${product.productId}, the BOM's own product; it cannot be a component of itself`,
      );
    if (items.has(component.productUrl))
      throw new BadRecordError(
        id,
        field,
        `${c.productId} is the service's product ${component.productId}, listed already; send one line per component`,
      );
    items.set(component.productUrl, c.quantity);
  });
  return { product, items };
}
