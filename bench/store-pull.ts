// A store's pull at the standard plan's limits (docs/benchmarks.md, "A store's pull"): the sandbox store with a bucket
// of 2,000 points restoring 100 a second, its orders read by the store source page by page as `worker` reads them.
// Prints orders a minute, and the points each page asks and costs. Usage: npx tsx bench/store-pull.ts [--orders N]
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { shopifyOrders } from '../jobs/orders/transforms/shopify-orders.js';
import { startShopifyStore } from '../src/sandbox/shopify/shopify-store.js';
import { StoreClient } from '../src/sources/shopify/store-client.js';
import { StoreSource } from '../src/sources/shopify/store-source.js';
import { median } from './lib/median.js';

export interface StorePullFigures {
  shape: string;
  orders: number;
  pages: number;
  seconds: number;
  perMinute: number;
  /** Points a page asked (requested) and cost (actual), medians; and the actual cost of one order. */
  requested: number;
  actual: number;
  perOrder: number;
  /** Orders a minute once the bucket's first 2,000 points are spent: the restore rate over an order's actual cost. */
  steadyPerMinute: number;
  throttled: number;
}

/** Reads `count` orders of a shape from a fresh store, as one pull does from an empty cursor. */
export async function runStorePull(count: number, shape: 'placed' | 'lived'): Promise<StorePullFigures> {
  const store = await startShopifyStore({ bucket: { maximumAvailable: 2000, restoreRate: 100 } });
  const t = Date.now() - 3_600_000;
  const s = store.admin.orders;
  for (let i = 0; i < count; i++) {
    const o = s.place({
      lines: [
        { sku: 'MUG-BLUE', quantity: 3, price: '12.50' },
        { sku: 'SKU-0003', quantity: 2, price: '4' },
      ],
      at: t + i * 1000,
    });
    if (shape === 'lived') {
      const [mug, sku] = o.lineItems;
      s.fulfill(o.id, 48752903, [{ lineItemId: mug!.id, quantity: 2 }], t + i * 1000 + 1);
      s.fulfill(
        o.id,
        61430117,
        [
          { lineItemId: mug!.id, quantity: 1 },
          { lineItemId: sku!.id, quantity: 2 },
        ],
        t + i * 1000 + 2,
      );
      s.refund(o.id, [{ lineItemId: mug!.id, quantity: 1, restockType: 'RETURN', locationId: 48752903 }], t + i * 1000 + 3);
    }
  }
  const client = new StoreClient({ storeUrl: store.url, apiVersion: '2025-10', token: store.token });
  const source = new StoreSource({
    client,
    stream: 'orders',
    transform: { stream: 'orders', name: 'shopify-orders', fn: shopifyOrders },
    lookBackMs: 120_000,
    graceMs: 60_000,
  });
  const started = Date.now();
  let cursor: string | undefined;
  let read = 0;
  let pages = 0;
  for (;;) {
    const page = await source.fetchPage('orders', { after: cursor, limit: 250 });
    read += page.items.length;
    pages++;
    cursor = page.cursor;
    if (!page.hasMore) break;
  }
  const seconds = (Date.now() - started) / 1000;
  const answers = store.admin.answers.filter((a) => !a.throttled);
  await store.close();
  const actual = median(answers.map((a) => a.actual ?? 0));
  const perOrder = answers.reduce((sum, a) => sum + (a.actual ?? 0), 0) / read;
  return {
    shape,
    orders: read,
    pages,
    seconds: Math.round(seconds * 10) / 10,
    perMinute: Math.round((read / seconds) * 60),
    requested: median(answers.map((a) => a.requested)),
    actual,
    perOrder: Math.round(perOrder * 10) / 10,
    steadyPerMinute: Math.round((100 / perOrder) * 60),
    throttled: store.admin.answers.length - answers.length,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { orders: { type: 'string', default: '300' } } });
  for (const shape of ['placed', 'lived'] as const) console.log(JSON.stringify(await runStorePull(Number(values.orders), shape)));
}
