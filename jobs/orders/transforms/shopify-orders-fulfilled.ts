import { z } from 'zod';
import type { OrderLine, OrderRecord } from '../order-record.js';

/**
 * The built-in transform `shopify-orders-fulfilled` (docs/transforms.md): the body of Shopify's `orders/fulfilled`
 * webhook, the Order resource of its REST Admin API, as one order record. Written from that public documentation:
 *
 * - orderId: the order's `name` without its leading `#` ("#1001" → "1001"); `order_number` when it has no name;
 * - orderDate: `created_at` as the naive local date-time it reads as (its UTC offset, the shop's zone, left off);
 * - lines: the line items of the order's successful fulfillments, one line per fulfilled line item: productId its
 *   `sku`, quantity the fulfilled quantity, unitPrice its `price` (a decimal string);
 * - location: the fulfillment's `location_id` as the facility `shopify:{location_id} / shipping`, origin
 *   `shopify:{location_id}`: the operator's MAPPING_FILE names the service's facilities for them.
 *
 * A line item without a SKU, or a price that is no number, fails the whole order, naming the line item.
 */

/** The facility name an order's origin gets for a Shopify location (mapped by MAPPING_FILE's facility aliases). */
export const shopifyOrigin = (locationId: number | string) => `shopify:${locationId}`;
/** The location its lines leave from: a path under that origin, so one alias of the origin maps both. */
export const shopifyLocation = (locationId: number | string) => `${shopifyOrigin(locationId)} / shipping`;

const lineItemSchema = z.object({
  id: z.number(),
  title: z.string().nullish(),
  sku: z.string().nullish(),
  quantity: z.number(),
  price: z.union([z.string(), z.number()]).nullish(),
});
type LineItem = z.infer<typeof lineItemSchema>;

const fulfillmentSchema = z.object({
  id: z.number().optional(),
  status: z.string().nullish(),
  location_id: z.number().nullish(),
  line_items: z.array(lineItemSchema),
});

const shopifyOrderSchema = z.object({
  id: z.number(),
  name: z.string().nullish(),
  order_number: z.number().nullish(),
  created_at: z.string().nullish(),
  line_items: z.array(lineItemSchema),
  fulfillments: z.array(fulfillmentSchema),
});

/** A fulfillment whose units left: Shopify's other statuses (pending, open, cancelled, error, failure) shipped nothing. */
const shipped = (status: string | null | undefined) => status === 'success' || status === undefined || status === null;

const LOCAL = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})/;

/** What names a line item in an error: where it is, its id and its title. */
function nameOf(where: string, item: LineItem): string {
  return `${where} (id ${item.id}${item.title ? `, "${item.title}"` : ''})`;
}

/** One fulfilled line item as an order line; the order's own line item fills in what the fulfillment's lacks. */
function lineOf(where: string, item: LineItem, ordered: LineItem | undefined, locationId: number): OrderLine {
  const sku = (item.sku ?? ordered?.sku ?? '').trim();
  if (!sku) throw new Error(`${nameOf(where, item)} has no sku: its product cannot be named`);
  const price = item.price ?? ordered?.price;
  const unitPrice = typeof price === 'number' ? price : Number(price);
  if (price === null || price === undefined || (typeof price === 'string' && !price.trim()) || !Number.isFinite(unitPrice))
    throw new Error(`${nameOf(where, item)}: price ${JSON.stringify(price ?? null)} is not a number`);
  return { productId: sku, quantity: item.quantity, unitPrice, location: shopifyLocation(locationId) };
}

/** The `orders/fulfilled` payload as an order record; throws naming the field or line item that stops it. */
export function shopifyOrdersFulfilled(payload: unknown): OrderRecord {
  const parsed = shopifyOrderSchema.safeParse(payload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`not a Shopify order: ${issue.path.map(String).join('.') || '(payload)'}: ${issue.message}`);
  }
  const order = parsed.data;
  const orderId = order.name?.trim().replace(/^#/, '') || (order.order_number == null ? '' : String(order.order_number));
  if (!orderId) throw new Error(`order ${order.id} has neither a name nor an order_number`);
  const ordered = new Map(order.line_items.map((i) => [i.id, i]));
  const lines: OrderLine[] = [];
  let origin: number | undefined;
  order.fulfillments.forEach((f, fi) => {
    if (!shipped(f.status)) return;
    if (f.location_id == null) throw new Error(`fulfillments[${fi}] has no location_id: where its units left from is unknown`);
    origin ??= f.location_id;
    f.line_items.forEach((item, li) =>
      lines.push(lineOf(`fulfillments[${fi}].line_items[${li}]`, item, ordered.get(item.id), f.location_id!)),
    );
  });
  if (origin === undefined || lines.length === 0) throw new Error(`order ${orderId} has no successful fulfillment with line items`);
  const local = order.created_at ? LOCAL.exec(order.created_at)?.[1] : undefined;
  return { orderId, ...(local ? { orderDate: local } : {}), origin: shopifyOrigin(origin), lines };
}
