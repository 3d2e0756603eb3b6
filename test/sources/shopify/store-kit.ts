import { shopifyOrders } from '../../../jobs/orders/transforms/shopify-orders.js';
import type { ShopifyStore } from '../../../src/sandbox/shopify/shopify-store.js';
import { StoreClient } from '../../../src/sources/shopify/store-client.js';
import { StoreSource, type StoreSourceOptions } from '../../../src/sources/shopify/store-source.js';

/** A client of the sandbox store, quick to give up (tests). */
export const clientOf = (store: ShopifyStore, o: { token?: string; url?: string } = {}) =>
  new StoreClient({ storeUrl: o.url ?? store.url, apiVersion: '2025-10', token: o.token ?? store.token, attempts: 2, minRetryDelayMs: 10 });

/** The orders stream's store source over a client, with the kind's transform. */
export const sourceOf = (client: StoreClient, o: Partial<StoreSourceOptions> = {}) =>
  new StoreSource({
    client,
    stream: 'orders',
    transform: { stream: 'orders', name: 'shopify-orders', fn: shopifyOrders },
    lookBackMs: 120_000,
    graceMs: 60_000,
    ...o,
  });

/** Reads pages from a cursor until caught up, as a pull does; answers the records and the cursor after. */
export async function readAll(source: StoreSource, cursor?: string) {
  const items: Array<Record<string, unknown>> = [];
  for (;;) {
    const page = await source.fetchPage('orders', { after: cursor, limit: 500 });
    items.push(...(page.items as Array<Record<string, unknown>>));
    cursor = page.cursor;
    if (!page.hasMore) return { items, cursor };
  }
}

/** An order of two lines placed at `at`. */
export const placeAt = (store: ShopifyStore, at: number) =>
  store.admin.orders.place({
    lines: [
      { sku: 'MUG-BLUE', quantity: 2, price: '12.50' },
      { sku: 'SKU-0003', quantity: 1, price: '4' },
    ],
    at,
  });
