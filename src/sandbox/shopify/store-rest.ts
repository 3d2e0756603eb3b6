import { zonedTime } from '../../time/zoned-time.js';
import { currentQuantity, fulfillableQuantity, type StoreOrderState, type StoreRefund } from './store-state.js';

/**
 * The sandbox store's orders and refunds as Shopify's REST Admin API writes them, the bodies of its `orders/*` and
 * `refunds/create` webhooks (shopify.dev, REST Admin API: Order, Refund): ids as numbers, times in the shop's zone
 * with its offset, prices as decimal strings, restock types in lower case.
 */

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** A refund as its webhook and its order's `refunds` list carry it. */
export function restRefund(o: StoreOrderState, r: StoreRefund, zone: string): Record<string, unknown> {
  const at = zonedTime(iso(r.createdAt), zone);
  return {
    id: r.id,
    order_id: o.id,
    created_at: at,
    processed_at: at,
    restock: r.lines.some((l) => l.restockType !== 'NO_RESTOCK'),
    admin_graphql_api_id: `gid://shopify/Refund/${r.id}`,
    refund_line_items: r.lines.map((l, i) => {
      const li = o.lineItems.find((x) => x.id === l.lineItemId)!;
      return {
        id: r.id * 10 + i,
        line_item_id: l.lineItemId,
        quantity: l.quantity,
        restock_type: l.restockType.toLowerCase(),
        location_id: l.locationId,
        line_item: { id: li.id, sku: li.sku, title: li.title, price: li.price },
      };
    }),
  };
}

/** An order as its webhooks carry it. */
export function restOrder(o: StoreOrderState, zone: string, shopDomain: string): Record<string, unknown> {
  const t = (ms: number | null) => (ms === null ? null : zonedTime(iso(ms), zone));
  return {
    id: o.id,
    admin_graphql_api_id: `gid://shopify/Order/${o.id}`,
    name: `#${o.number}`,
    order_number: o.number,
    created_at: t(o.createdAt),
    updated_at: t(o.updatedAt),
    processed_at: t(o.createdAt),
    cancelled_at: t(o.cancelledAt),
    location_id: o.retailLocationId,
    source_name: o.retailLocationId ? 'pos' : 'web',
    order_status_url: `https://${shopDomain}/orders/${o.id}`,
    line_items: o.lineItems.map((li) => ({
      id: li.id,
      admin_graphql_api_id: `gid://shopify/LineItem/${li.id}`,
      title: li.title,
      name: li.title,
      sku: li.sku,
      quantity: li.quantity,
      current_quantity: currentQuantity(o, li),
      fulfillable_quantity: fulfillableQuantity(o, li),
      price: li.price,
    })),
    fulfillments: o.fulfillments.map((f) => ({
      id: f.id,
      order_id: o.id,
      name: f.name,
      status: f.status.toLowerCase(),
      location_id: f.locationId,
      created_at: t(f.createdAt),
      line_items: f.lines.map((l) => {
        const li = o.lineItems.find((x) => x.id === l.lineItemId)!;
        return { id: li.id, sku: li.sku, title: li.title, quantity: l.quantity, price: li.price };
      }),
    })),
    refunds: o.refunds.map((r) => restRefund(o, r, zone)),
  };
}
