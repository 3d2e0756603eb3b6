/**
 * The queries the store source sends for orders, and what each asks of the cost bucket, by Shopify's published rules
 * (docs/shopify.md, "Cost"): a scalar or enum 0, an object 1, a connection 2 plus `first` times one node, a list
 * with `first` that many elements. Every field read here is in the Admin API's schema with the type read
 * (test/sources/shopify/store-queries.test.ts validates the queries against the sandbox store's schema).
 */

/** How many of each nested list one query reads of an order. */
export interface Nesting {
  lineItems: number;
  fulfillments: number;
  fulfillmentLines: number;
  refunds: number;
  refundLines: number;
}

/** The page query's: small, so that pages hold several orders within the 1,000 points a query may ask. */
export const PAGE_NESTING: Nesting = { lineItems: 8, fulfillments: 3, fulfillmentLines: 8, refunds: 2, refundLines: 6 };
/** An order read alone, when the page's nesting cut one of its lists (939 points). */
export const ALONE_NESTING: Nesting = { lineItems: 50, fulfillments: 5, fulfillmentLines: 30, refunds: 5, refundLines: 30 };
/** The most points one query may ask of a store (MAX_COST_EXCEEDED past it). */
export const MAX_QUERY_COST = 1000;

/** One order's fields: what the shopify-orders transform reads of a webhook's Order, in the Admin API's names. */
function orderFields(n: Nesting): string {
  return `legacyResourceId name createdAt updatedAt cancelledAt
    retailLocation { legacyResourceId }
    lineItems(first: ${n.lineItems}) {
      nodes { id sku title quantity currentQuantity fulfillableQuantity originalUnitPriceSet { shopMoney { amount } } } }
    fulfillments(first: ${n.fulfillments}) { legacyResourceId name status location { legacyResourceId }
      fulfillmentLineItems(first: ${n.fulfillmentLines}) { nodes { quantity lineItem { id sku } } } }
    refunds(first: ${n.refunds}) { legacyResourceId createdAt
      refundLineItems(first: ${n.refundLines}) { nodes { quantity restockType location { legacyResourceId } lineItem { id sku } } } }`;
}

/** Points one order of these fields asks: itself, its retail location, and its nested lists at their `first`. */
export function orderCost(n: Nesting): number {
  const lineItems = 2 + n.lineItems * 3; // the item, its price set, its shop money
  // The fulfillment, its location, its lines (each with its item).
  const fulfillments = n.fulfillments * (1 + 1 + 2 + n.fulfillmentLines * 2);
  const refunds = n.refunds * (1 + 2 + n.refundLines * 3); // the refund, its lines (each with location and item)
  return 1 + 1 + lineItems + fulfillments + refunds;
}

/** The page of orders updated since a time, oldest change first, with the shop's time zone (1 point). */
export const ORDERS_QUERY = `query StoreOrders($first: Int!, $after: String, $query: String) {
  shop { ianaTimezone }
  orders(first: $first, after: $after, query: $query, sortKey: UPDATED_AT) {
    pageInfo { hasNextPage endCursor }
    nodes { ${orderFields(PAGE_NESTING)} }
  }
}`;

/** One order by its id, with room for large ones. */
export const ORDER_QUERY = `query StoreOrder($id: ID!) {
  shop { ianaTimezone }
  order(id: $id) { ${orderFields(ALONE_NESTING)} }
}`;

/** What a page of `first` orders asks: the shop, the connection, its orders. */
export const pageCost = (first: number) => 1 + 2 + first * orderCost(PAGE_NESTING);
/** What one order read alone asks. */
export const ALONE_COST = 1 + orderCost(ALONE_NESTING);

/** The most orders a page may ask within `limit` points (at most Shopify's 250, at least 1). */
export function pageSize(limit: number, wanted = 250): number {
  const fits = Math.floor((Math.min(limit, MAX_QUERY_COST) - 3) / orderCost(PAGE_NESTING));
  return Math.max(1, Math.min(250, wanted, fits));
}

/** The search that reads orders updated at or after an instant (Shopify's search syntax). */
export const updatedSince = (iso: string) => `updated_at:>='${iso}'`;
