import type { Product, ProductAssoc } from '../../src/client/answers/schemas.js';

/** A bill of materials as productUrl -> quantity. */
export type BomItems = Map<string, number>;

/** The entry that is the product's bill of materials: the first MANUF_COMPONENT one (later ones are ignored). */
export function firstBomEntry(product: Pick<Product, 'productAssocList'>): ProductAssoc | undefined {
  return product.productAssocList.find((a) => a.productAssocTypeId === 'MANUF_COMPONENT');
}

/** The entry's components; an item the service answers without productUrl or quantity makes the bill differ from any wanted one. */
export function bomItemsOf(entry: ProductAssoc): BomItems {
  const items: BomItems = new Map();
  entry.productAssocItemList.forEach((it, i) => {
    const key = it.productUrl ?? `(item ${i} without productUrl)`;
    items.set(key, (items.get(key) ?? 0) + (it.quantity ?? Number.NaN));
  });
  return items;
}

/** Whether two bills list the same components in the same quantities (order does not matter). */
export function sameBom(a: BomItems, b: BomItems): boolean {
  if (a.size !== b.size) return false;
  for (const [url, q] of a) {
    const other = b.get(url);
    // Written so that a NaN quantity (an item without one) never counts as equal.
    if (other === undefined || !(Math.abs(other - q) <= 1e-9)) return false;
  }
  return true;
}
