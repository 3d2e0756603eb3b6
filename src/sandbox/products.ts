import { z } from 'zod';
import type { ApiContext } from './api-context.js';
import { productView } from './answer-views.js';
import { requireProduct } from './references.js';
import type { ProductAssoc, ProductAssocItem, ProductEntity } from './sandbox-entities.js';
import { badRequest, missingReference, notFound, parseBody } from './validation.js';

const MANUF_COMPONENT = 'MANUF_COMPONENT';

const updateSchema = z.object({
  productId: z.string().min(1),
  productUrl: z.string().min(1),
  internalName: z.string().nullish(),
  statusId: z.enum(['PRODUCT_ACTIVE', 'PRODUCT_INACTIVE']).optional(),
  productAssocList: z
    .array(
      z.object({
        productAssocTypeId: z.string().min(1),
        productAssocUrl: z.string().min(1).optional(),
        productAssocItemList: z.array(z.object({ productUrl: z.string().min(1), quantity: z.number().positive() })),
      }),
    )
    .optional(),
});

export function requireProductById(ctx: ApiContext, internalId: string): ProductEntity {
  const p = ctx.store.products.get(internalId);
  if (!p) throw notFound(`No product ${internalId}`);
  return p;
}

/**
 * POST /product/<internalId>: productId and productUrl are required and must be the product's own.
 * Each productAssocList entry with a productAssocUrl replaces the items of that entry of this product; an
 * entry without one creates a new entry, appended after the existing ones (the first on a product that has
 * none; on a product that has one, the extra entry that docs/service.md "Calls the program makes" warns of).
 * Entries not sent stay as they are. Everything is checked before anything changes.
 */
export function updateProduct(ctx: ApiContext, internalId: string, body: unknown) {
  const product = requireProductById(ctx, internalId);
  const what = `product ${product.productId}`;
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const b = body as Record<string, unknown>;
    if (b.productId === undefined || b.productUrl === undefined)
      throw badRequest(`${what}: a product update needs both productId and productUrl`);
  }
  const b = parseBody(updateSchema, body, what);
  if (b.productUrl !== product.productUrl)
    throw badRequest(`${what}: productUrl ${b.productUrl} is not this product's URL ${product.productUrl}`);
  if (b.productId !== product.productId)
    throw badRequest(`${what}: productId ${b.productId} is not this product's productId ${product.productId}`);

  const plan: Array<{ assoc: ProductAssoc | undefined; typeId: string; items: ProductAssocItem[] }> = (b.productAssocList ?? []).map(
    (e, i) => {
      const field = `productAssocList[${i}]`;
      if (e.productAssocTypeId !== MANUF_COMPONENT) {
        throw badRequest(
          `${what}: ${field}.productAssocTypeId must be ${MANUF_COMPONENT} for a bill of materials, not ${e.productAssocTypeId}`,
        );
      }
      let assoc: ProductAssoc | undefined;
      if (e.productAssocUrl !== undefined) {
        const found = ctx.store.assocs.get(e.productAssocUrl);
        if (!found) throw missingReference(`productAssoc ${e.productAssocUrl} (${field}.productAssocUrl)`);
        if (found.product !== product) {
          throw badRequest(
            `${what}: ${field}.productAssocUrl ${e.productAssocUrl} ` +
              `is a bill of materials of product ${found.product.productId}, not of this one`,
          );
        }
        assoc = found.assoc;
      }
      const items = e.productAssocItemList.map((it, k) => {
        const component = requireProduct(ctx, it.productUrl, `${field}.productAssocItemList[${k}].productUrl`);
        if (component === product)
          throw badRequest(`${what}: ${field}.productAssocItemList[${k}]: a product cannot be a component of itself`);
        return { productUrl: component.productUrl, quantity: it.quantity };
      });
      return { assoc, typeId: e.productAssocTypeId, items };
    },
  );

  for (const step of plan) (step.assoc ?? ctx.store.newAssoc(product, step.typeId)).productAssocItemList = step.items;
  if (b.internalName !== undefined) product.internalName = b.internalName;
  if (b.statusId !== undefined) product.statusId = b.statusId;
  ctx.store.touch();
  ctx.counters.productUpdates++;
  return { ...productView(ctx.profile, product), invalidations: [product.productUrl, `${ctx.store.api}/product`] };
}
