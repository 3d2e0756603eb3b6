import { z } from 'zod';
import { zonedTime } from '../../time/zoned-time.js';

/**
 * An order as the GraphQL Admin API answers it (the fields of order-query.ts), read liberally, and the same order as
 * the REST Admin API's Order resource, the body of its `orders/*` webhooks: what the stream's store transform reads
 * (the orders kind's `shopify-orders`). One transform for both ways, so a webhook and a pull of one state are one record.
 */

const num = z.union([z.string(), z.number()]).transform((v, ctx) => {
  const n = Number(v);
  if (!Number.isSafeInteger(n)) ctx.addIssue({ code: 'custom', message: `${JSON.stringify(v)} is not an id` });
  return n;
});
const located = z.object({ legacyResourceId: num }).nullish();
const itemRef = z.object({ id: z.string(), sku: z.string().nullish() });
const nodes = <T extends z.ZodType>(node: T) => z.object({ nodes: z.array(node) });

const lineItem = itemRef.extend({
  title: z.string().nullish(),
  quantity: z.number(),
  currentQuantity: z.number().nullish(),
  fulfillableQuantity: z.number().nullish(),
  originalUnitPriceSet: z.object({ shopMoney: z.object({ amount: z.union([z.string(), z.number()]) }) }).nullish(),
});

export const storeOrderSchema = z.object({
  legacyResourceId: num,
  name: z.string().nullish(),
  createdAt: z.string().nullish(),
  updatedAt: z.string(),
  cancelledAt: z.string().nullish(),
  retailLocation: located,
  lineItems: nodes(lineItem),
  fulfillments: z.array(
    z.object({
      legacyResourceId: num,
      name: z.string().nullish(),
      status: z.string(),
      location: located,
      fulfillmentLineItems: nodes(z.object({ quantity: z.number().nullish(), lineItem: itemRef })),
    }),
  ),
  refunds: z.array(
    z.object({
      legacyResourceId: num,
      createdAt: z.string().nullish(),
      refundLineItems: nodes(z.object({ quantity: z.number(), restockType: z.string(), location: located, lineItem: itemRef })),
    }),
  ),
});
export type StoreOrder = z.infer<typeof storeOrderSchema>;

/** The number a global id ends in (`gid://shopify/LineItem/123` → 123): the REST resources' `id`. */
export function legacyId(gid: string): number {
  const n = Number(/\/(\d+)(?:\?.*)?$/.exec(gid)?.[1]);
  if (!Number.isSafeInteger(n)) throw new Error(`${gid} is not a Shopify global id`);
  return n;
}

const lower = (s: string) => s.toLowerCase();

/** The order in the REST Admin API's shape (its webhook body), times in the shop's zone as REST writes them. */
export function restOrder(o: StoreOrder, zone: string): Record<string, unknown> {
  const t = (iso: string | null | undefined) => zonedTime(iso, zone);
  return {
    id: o.legacyResourceId,
    name: o.name ?? null,
    created_at: t(o.createdAt),
    updated_at: t(o.updatedAt),
    cancelled_at: t(o.cancelledAt),
    location_id: o.retailLocation?.legacyResourceId ?? null,
    line_items: o.lineItems.nodes.map((li) => ({
      id: legacyId(li.id),
      title: li.title ?? null,
      sku: li.sku ?? null,
      quantity: li.quantity,
      current_quantity: li.currentQuantity ?? null,
      fulfillable_quantity: li.fulfillableQuantity ?? null,
      price: li.originalUnitPriceSet?.shopMoney.amount ?? null,
    })),
    fulfillments: o.fulfillments.map((f) => ({
      id: f.legacyResourceId,
      name: f.name ?? null,
      status: lower(f.status),
      location_id: f.location?.legacyResourceId ?? null,
      line_items: f.fulfillmentLineItems.nodes.map((fl) => ({
        id: legacyId(fl.lineItem.id),
        quantity: fl.quantity ?? 0,
        sku: fl.lineItem.sku ?? null,
      })),
    })),
    refunds: o.refunds.map((r) => ({
      id: r.legacyResourceId,
      order_id: o.legacyResourceId,
      created_at: t(r.createdAt),
      refund_line_items: r.refundLineItems.nodes.map((rl) => ({
        line_item_id: legacyId(rl.lineItem.id),
        quantity: rl.quantity,
        restock_type: lower(rl.restockType),
        location_id: rl.location?.legacyResourceId ?? null,
        line_item: { id: legacyId(rl.lineItem.id), sku: rl.lineItem.sku ?? null },
      })),
    })),
  };
}

/** Whether the page query's nesting may have cut one of the order's lists: then it is read alone (ORDER_QUERY). */
export function cutShort(
  o: StoreOrder,
  n: { lineItems: number; fulfillments: number; fulfillmentLines: number; refunds: number; refundLines: number },
): boolean {
  return (
    o.lineItems.nodes.length >= n.lineItems ||
    o.fulfillments.length >= n.fulfillments ||
    o.refunds.length >= n.refunds ||
    o.fulfillments.some((f) => f.fulfillmentLineItems.nodes.length >= n.fulfillmentLines) ||
    o.refunds.some((r) => r.refundLineItems.nodes.length >= n.refundLines)
  );
}
