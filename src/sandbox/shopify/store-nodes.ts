import { currentQuantity, fulfillableQuantity, type StoreLocation, type StoreOrderState } from './store-state.js';

/** The sandbox store's state as the GraphQL Admin API's objects (plain values, and functions for fields with arguments). */

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const gid = (type: string, id: number) => `gid://shopify/${type}/${id}`;

type Args = { first?: number | null; last?: number | null; after?: string | null };

/** A Relay connection of `items` from `after`, `first` of them, cursors from `cursorOf`. */
export function connection<T>(items: T[], args: Args, cursorOf: (item: T, i: number) => string) {
  const cursors = items.map(cursorOf);
  const start = args.after ? cursors.indexOf(args.after) + 1 : 0;
  const take = args.first ?? args.last ?? 50;
  const page = items.slice(start, start + take);
  const pageCursors = cursors.slice(start, start + take);
  return {
    nodes: page,
    edges: page.map((node, i) => ({ node, cursor: pageCursors[i] })),
    pageInfo: {
      hasNextPage: start + take < items.length,
      hasPreviousPage: start > 0,
      startCursor: pageCursors[0] ?? null,
      endCursor: pageCursors.at(-1) ?? null,
    },
  };
}

const indexCursor = (_: unknown, i: number) => Buffer.from(`i:${i}`).toString('base64');

export function locationNode(l: StoreLocation) {
  return { id: gid('Location', l.id), legacyResourceId: String(l.id), name: l.name, isActive: true };
}

export function orderNode(o: StoreOrderState, locations: ReadonlyMap<number, StoreLocation>) {
  const loc = (id: number | null) => {
    const l = id === null ? undefined : locations.get(id);
    return l ? locationNode(l) : null;
  };
  const items = new Map(
    o.lineItems.map((li) => [
      li.id,
      {
        id: gid('LineItem', li.id),
        sku: li.sku,
        title: li.title,
        name: li.title,
        quantity: li.quantity,
        currentQuantity: currentQuantity(o, li),
        fulfillableQuantity: fulfillableQuantity(o, li),
        unfulfilledQuantity: fulfillableQuantity(o, li),
        originalUnitPriceSet: {
          shopMoney: { amount: String(Number(li.price)), currencyCode: 'USD' },
          presentmentMoney: { amount: String(Number(li.price)), currencyCode: 'USD' },
        },
      },
    ]),
  );
  return {
    id: gid('Order', o.id),
    legacyResourceId: String(o.id),
    name: `#${o.number}`,
    createdAt: iso(o.createdAt),
    updatedAt: iso(o.updatedAt),
    processedAt: iso(o.createdAt),
    cancelledAt: o.cancelledAt === null ? null : iso(o.cancelledAt),
    retailLocation: loc(o.retailLocationId),
    lineItems: (a: Args) => connection([...items.values()], a, indexCursor),
    fulfillments: (a: Args) =>
      o.fulfillments.slice(0, a.first ?? 250).map((f) => ({
        id: gid('Fulfillment', f.id),
        legacyResourceId: String(f.id),
        name: f.name,
        status: f.status,
        createdAt: iso(f.createdAt),
        location: loc(f.locationId),
        fulfillmentLineItems: (b: Args) =>
          connection(
            f.lines.map((l, i) => ({
              id: gid('FulfillmentLineItem', f.id * 100 + i),
              quantity: l.quantity,
              lineItem: items.get(l.lineItemId),
            })),
            b,
            indexCursor,
          ),
      })),
    refunds: (a: Args) =>
      o.refunds.slice(0, a.first ?? 250).map((r) => ({
        id: gid('Refund', r.id),
        legacyResourceId: String(r.id),
        createdAt: iso(r.createdAt),
        refundLineItems: (b: Args) =>
          connection(
            r.lines.map((l, i) => ({
              id: gid('RefundLineItem', r.id * 10 + i),
              quantity: l.quantity,
              restockType: l.restockType,
              restocked: l.restockType !== 'NO_RESTOCK',
              location: loc(l.locationId),
              lineItem: items.get(l.lineItemId),
            })),
            b,
            indexCursor,
          ),
      })),
  };
}
