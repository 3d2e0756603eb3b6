import type { Product, ProductAssoc, UpdateProductBody } from '../../src/client/answers/schemas.js';
import type { CatalogProduct } from '../../src/catalog/types.js';
import { ConflictError } from '../../src/queue/job-errors.js';
import { bomItemsOf, firstBomEntry, sameBom, type BomItems } from './bom-items.js';

/** What a BOM record asks of the product as read: nothing, or one write that replaces or creates its first entry. */
export type BomUpdate =
  { action: 'matches'; entry: ProductAssoc } | { action: 'updated' | 'created'; entry?: ProductAssoc; body: UpdateProductBody };

/**
 * Decides the write of a BOM (docs/boms.md, steps 3 and 4): none when the first MANUF_COMPONENT entry already lists
 * the components; else the entry replaced by its productAssocUrl, or a first entry created. An entry without a URL
 * cannot be replaced without creating an extra one: ConflictError.
 */
export function bomUpdate(id: string, found: CatalogProduct, product: Product, items: BomItems): BomUpdate {
  const entry = firstBomEntry(product);
  if (entry && sameBom(bomItemsOf(entry), items)) return { action: 'matches', entry };
  if (entry && !entry.productAssocUrl) {
    throw new ConflictError(
      `BOM of ${id}: the product's first MANUF_COMPONENT entry has no productAssocUrl, ` +
        'so it cannot be updated without creating an extra entry',
      'Check the product in the service; the job can be retried once the entry shows its productAssocUrl.',
      { productUrl: found.productUrl, components: items.size },
      "the product's first MANUF_COMPONENT entry has no productAssocUrl",
    );
  }
  const body: UpdateProductBody = {
    // From the catalog: a product answer need not carry them (docs/service.md).
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
  return entry ? { action: 'updated', entry, body } : { action: 'created', body };
}
