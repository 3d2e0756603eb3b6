import type { Product, ProductAssoc } from '../client/schemas.js';

/** A bill of materials as productUrl -> quantity. */
export type BomItems = Map<string, number>;

/** The entry that is the product's bill of materials: the first MANUF_COMPONENT one (later ones are ignored). */
export function firstBomEntry(product: Pick<Product, 'productAssocList'>): ProductAssoc | undefined {
  return product.productAssocList.find((a) => a.productAssocTypeId === 'MANUF_COMPONENT');
}

export function bomItemsOf(entry: ProductAssoc): BomItems {
  const items: BomItems = new Map();
  for (const it of entry.productAssocItemList) items.set(it.productUrl, (items.get(it.productUrl) ?? 0) + it.quantity);
  return items;
}

/** Whether two bills list the same components in the same quantities (order does not matter). */
export function sameBom(a: BomItems, b: BomItems): boolean {
  if (a.size !== b.size) return false;
  for (const [url, q] of a) {
    const other = b.get(url);
    if (other === undefined || Math.abs(other - q) > 1e-9) return false;
  }
  return true;
}
