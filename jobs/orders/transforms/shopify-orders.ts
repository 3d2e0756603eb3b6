import { z } from 'zod';
import type { Fulfillment, OrderLine, OrderRecord, PartLine, ReturnNotice } from '../order-record.js';
import { shopifyLocation, shopifyOrigin } from './shopify-orders-fulfilled.js';
import {
  DEFAULT_LOCATION,
  firstProblem,
  isRefund,
  refundReturns,
  refundSchema,
  returnedKind,
  shopifyReturnNotice,
  shopLocal,
} from './shopify-refunds.js';

/**
 * The built-in transform `shopify-orders` (docs/transforms.md, "Shopify: the order's life"): the bodies of Shopify's
 * `orders/create`, `orders/updated` and `orders/cancelled` webhooks (the Order resource of its REST Admin API) as a
 * snapshot of the order, and `refunds/create` (the Refund resource) as a return notice. It reads no topic: a body
 * with `order_id` and `refund_line_items` is a refund, any other an order, so saved payloads import the same way.
 */

const lineItemSchema = z.object({
  id: z.number(),
  title: z.string().nullish(),
  sku: z.string().nullish(),
  quantity: z.number(),
  current_quantity: z.number().nullish(),
  fulfillable_quantity: z.number().nullish(),
  price: z.union([z.string(), z.number()]).nullish(),
});
type LineItem = z.infer<typeof lineItemSchema>;

const fulfillmentSchema = z.object({
  id: z.number(),
  name: z.string().nullish(),
  status: z.string().nullish(),
  location_id: z.number().nullish(),
  line_items: z.array(z.object({ id: z.number(), quantity: z.number(), sku: z.string().nullish() })),
});

const orderSchema = z.object({
  id: z.number(),
  created_at: z.string().nullish(),
  updated_at: z.string().nullish(),
  cancelled_at: z.string().nullish(),
  location_id: z.number().nullish(),
  line_items: z.array(lineItemSchema),
  fulfillments: z.array(fulfillmentSchema).nullish(),
  refunds: z.array(refundSchema).nullish(),
});
type ShopifyOrder = z.infer<typeof orderSchema>;

/** What happened to one line item's units: shipped per location, in a fulfillment not done yet, returned, refunded. */
interface Tally {
  shippedAt: Map<string, number>;
  inProgress: number;
  returned: number;
  refunded: number;
}

const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

function nameOf(where: string, item: { id: number; title?: string | null }): string {
  return `${where} (id ${item.id}${item.title ? `, "${item.title}"` : ''})`;
}

function priceOf(where: string, item: LineItem): number {
  const price = item.price;
  const n = typeof price === 'number' ? price : Number(price);
  if (price === null || price === undefined || (typeof price === 'string' && !price.trim()) || !Number.isFinite(n))
    throw new Error(`${nameOf(where, item)}: price ${JSON.stringify(price ?? null)} is not a number`);
  return n;
}

/** The successful fulfillments as the record's, tallying each line item's units on the way. */
function fulfillmentsOf(order: ShopifyOrder, items: Map<number, LineItem>, tally: (id: number) => Tally): Fulfillment[] {
  const out: Fulfillment[] = [];
  (order.fulfillments ?? []).forEach((f, fi) => {
    if (f.status === 'pending' || f.status === 'open') {
      for (const li of f.line_items) tally(li.id).inProgress += li.quantity;
      return;
    }
    // cancelled, error, failure: nothing left.
    if (f.status !== 'success') return;
    if (f.location_id == null) throw new Error(`fulfillments[${fi}] has no location_id: where its units left from is unknown`);
    const location = shopifyLocation(f.location_id);
    const lines: PartLine[] = [];
    f.line_items.forEach((li, i) => {
      if (li.quantity <= 0) return;
      const sku = (li.sku ?? items.get(li.id)?.sku ?? '').trim();
      if (!sku) throw new Error(`${nameOf(`fulfillments[${fi}].line_items[${i}]`, li)} has no sku: its product cannot be named`);
      const shipped = tally(li.id).shippedAt;
      shipped.set(location, (shipped.get(location) ?? 0) + li.quantity);
      lines.push({ productId: sku, quantity: li.quantity, location });
    });
    if (lines.length) out.push({ fulfillmentId: f.name?.trim().replace(/^#/, '') || String(f.id), lines });
  });
  return out;
}

/**
 * Units of a line item still to ship: its current quantity less the shipped units the customer kept (shipped, less
 * those refunded since), at most Shopify's fulfillable quantity and the units of fulfillments in progress.
 */
function unshipped(item: LineItem, t: Tally): number {
  const shipped = sum(t.shippedAt);
  const current = item.current_quantity ?? item.quantity - t.refunded;
  let left = Math.max(0, current - (shipped - Math.min(shipped, t.returned)));
  if (item.fulfillable_quantity != null) left = Math.min(left, item.fulfillable_quantity + t.inProgress);
  return left;
}

/** The order's lines now: each line item's shipped units at their locations, the rest at `unshippedAt`. */
function linesOf(order: ShopifyOrder, tallyOf: (id: number) => Tally, cancelled: boolean, unshippedAt: string) {
  const lines: OrderLine[] = [];
  let open = false;
  order.line_items.forEach((item, i) => {
    const t = tallyOf(item.id);
    const left = cancelled ? 0 : unshipped(item, t);
    if (left === 0 && t.shippedAt.size === 0) return;
    const where = `line_items[${i}]`;
    const productId = (item.sku ?? '').trim();
    if (!productId) throw new Error(`${nameOf(where, item)} has no sku: its product cannot be named`);
    const unitPrice = priceOf(where, item);
    for (const [location, quantity] of t.shippedAt) lines.push({ productId, quantity, unitPrice, location });
    if (left > 0) lines.push({ productId, quantity: left, unitPrice, location: unshippedAt });
    open ||= left > 0;
  });
  return { lines, open };
}

/** The line items as placed (their `quantity`), all at one location. */
function placedLines(order: ShopifyOrder, location: string): OrderLine[] {
  const lines: OrderLine[] = [];
  order.line_items.forEach((item, i) => {
    if (item.quantity <= 0) return;
    const productId = (item.sku ?? '').trim();
    if (!productId) throw new Error(`${nameOf(`line_items[${i}]`, item)} has no sku: its product cannot be named`);
    lines.push({ productId, quantity: item.quantity, unitPrice: priceOf(`line_items[${i}]`, item), location });
  });
  return lines;
}

/** An order's body as its snapshot. */
function orderSnapshot(order: ShopifyOrder): OrderRecord {
  const orderId = String(order.id);
  const items = new Map(order.line_items.map((i) => [i.id, i]));
  const tallies = new Map<number, Tally>();
  const tallyOf = (id: number): Tally => {
    let t = tallies.get(id);
    if (!t) tallies.set(id, (t = { shippedAt: new Map(), inProgress: 0, returned: 0, refunded: 0 }));
    return t;
  };
  const fulfillments = fulfillmentsOf(order, items, tallyOf);
  const refunds = order.refunds ?? [];
  for (const rl of refunds.flatMap((r) => r.refund_line_items)) {
    tallyOf(rl.line_item_id).refunded += rl.quantity;
    if (returnedKind(rl.restock_type)) tallyOf(rl.line_item_id).returned += rl.quantity;
  }
  const returns = refunds.flatMap((r, i) => refundReturns(r, `refunds[${i}]`, (id) => items.get(id)?.sku ?? undefined));
  const place = order.location_id ?? DEFAULT_LOCATION;
  const cancelled = !!order.cancelled_at;
  const { lines, open } = linesOf(order, tallyOf, cancelled, shopifyLocation(place));
  // Cancelled before anything shipped: the lines as placed, so the record still says what was cancelled.
  if (!lines.length && cancelled) lines.push(...placedLines(order, shopifyLocation(place)));
  if (!lines.length) throw new Error(`order ${orderId} has no line left: every line item was removed before any shipped`);
  const orderDate = shopLocal(order.created_at);
  const updatedAt = shopLocal(order.updated_at);
  return {
    orderId,
    ...(orderDate ? { orderDate } : {}),
    status: cancelled ? 'cancelled' : open ? 'open' : 'fulfilled',
    ...(updatedAt ? { updatedAt } : {}),
    origin: shopifyOrigin(place),
    lines,
    fulfillments,
    returns,
  };
}

/** A Shopify order or refund body as the orders stream's record; throws naming the field or line item that stops it. */
export function shopifyOrders(payload: unknown): OrderRecord | ReturnNotice | null {
  if (isRefund(payload)) return shopifyReturnNotice(payload);
  const parsed = orderSchema.safeParse(payload);
  if (!parsed.success) throw new Error(`not a Shopify order: ${firstProblem(parsed.error)}`);
  return orderSnapshot(parsed.data);
}
