import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startShopifyStore, type ShopifyStore } from '../../../src/sandbox/shopify/shopify-store.js';
import { clientOf, placeAt, readAll, sourceOf } from './store-kit.js';

let store: ShopifyStore;
beforeEach(async () => {
  store = await startShopifyStore();
});
afterEach(async () => {
  await store.close();
});

const HOUR = 3_600_000;

describe('the store source', () => {
  describe('when an update shows in the search only after later ones were read', () => {
    /** A read, then A's change hidden from the search while B's later change is read; then A's shows. */
    async function lateUpdate(lookBackMs: number) {
      const t = Date.now();
      const a = placeAt(store, t - 2 * HOUR);
      const b = placeAt(store, t - HOUR);
      const source = sourceOf(clientOf(store), { lookBackMs });
      const first = await readAll(source);
      store.admin.setSearchLag(400);
      store.admin.orders.cancel(a.id, t - 100_000);
      store.admin.setSearchLag(0);
      store.admin.orders.cancel(b.id, t - 50_000);
      const second = await readAll(source, first.cursor);
      await new Promise((r) => setTimeout(r, 500));
      const third = await readAll(source, second.cursor);
      return { a: String(a.id), b: String(b.id), second, third };
    }

    it('the look-back finds it at the next pull', async () => {
      const { a, b, second, third } = await lateUpdate(120_000);
      expect(second.items.map((r) => [r.orderId, r.status])).toEqual([[b, 'cancelled']]);
      expect(third.items.map((r) => [r.orderId, r.status])).toContainEqual([a, 'cancelled']);
    });

    it('without enough look-back it would be missed', async () => {
      const { a, third } = await lateUpdate(1_000);
      expect(third.items.map((r) => r.orderId)).not.toContain(a);
    });
  });

  describe('when many pages are read at once', () => {
    it('asks each page within what the bucket holds: no THROTTLED answer, no query over 1,000 points', async () => {
      // A bucket just over one page (913 points), restoring 500 a second: each page waits for the one before.
      await store.close();
      store = await startShopifyStore({ bucket: { maximumAvailable: 1000, restoreRate: 500 } });
      const t = Date.now() - HOUR;
      for (let i = 0; i < 60; i++) placeAt(store, t + i * 1000);
      const started = Date.now();
      const { items } = await readAll(sourceOf(clientOf(store)));
      expect(items).toHaveLength(60);
      const answers = store.admin.answers;
      expect(answers.filter((x) => x.throttled)).toEqual([]);
      expect(Math.max(...answers.map((x) => x.requested))).toBeLessThanOrEqual(1000);
      expect(answers.length).toBe(9);
      // 8 waits of about (913 - what was left) / 500 s.
      expect(Date.now() - started).toBeGreaterThan(700);
    }, 30_000);

    it('when another app emptied the bucket, the THROTTLED answer is waited out as its restore rate says', async () => {
      placeAt(store, Date.now() - HOUR);
      const client = clientOf(store);
      await readAll(sourceOf(client));
      store.admin.bucket.available = 900;
      store.admin.bucket.at = Date.now();
      client.bucket.learn({ maximumAvailable: 2000, currentlyAvailable: 2000, restoreRate: 100 });
      const { items } = await readAll(sourceOf(client));
      expect(items).toHaveLength(1);
      expect(store.admin.answers.filter((x) => x.throttled)).toHaveLength(1);
    }, 30_000);
  });

  describe('when an order has more than the page reads of it', () => {
    it('reads it alone; one larger than that fails as a bad record naming it, and the orders around it are read', async () => {
      const t = Date.now() - HOUR;
      placeAt(store, t);
      const lines = (n: number) => Array.from({ length: n }, (_, i) => ({ sku: 'MUG-BLUE', quantity: 1, price: '1', title: `line ${i}` }));
      const mid = store.admin.orders.place({ lines: lines(20), at: t + 1000 });
      const huge = store.admin.orders.place({ lines: lines(60), at: t + 2000 });
      placeAt(store, t + 3000);
      const { items } = await readAll(sourceOf(clientOf(store)));
      expect(items).toHaveLength(4);
      expect((items[1] as { lines: unknown[] }).lines).toHaveLength(20);
      expect(items[1]).toMatchObject({ orderId: String(mid.id) });
      expect(items[2]).toMatchObject({ reason: expect.stringMatching(/^order #\d+ has 50 or more line items.*sync it by hand$/) });
      expect((items[2] as { head: string }).head).toContain(String(huge.id));
      expect(store.admin.answers.filter((a) => a.requested === 940)).toHaveLength(2);
    });
  });

  describe('errors a person can act on', () => {
    it.each([
      [
        'a wrong token',
        (s: ShopifyStore) => clientOf(s, { token: 'shpat_wrong' }),
        'STORE_UNAUTHORIZED',
        /refused the access token \(HTTP 401\)/,
        /SHOPIFY_ACCESS_TOKEN/,
      ],
      [
        'a token without read_orders',
        (s: ShopifyStore) => (s.admin.setScopes(['read_locations']), clientOf(s)),
        'STORE_ACCESS_DENIED',
        /lacks a scope: Access denied for orders field/,
        /read_orders/,
      ],
      [
        'a URL that is not a store',
        (s: ShopifyStore) => clientOf(s, { url: `${s.url}/shop` }),
        'STORE_NOT_A_STORE',
        /not a Shopify store's Admin API \(HTTP 404/,
        /myshopify\.com/,
      ],
    ])('%s: one line saying what failed, and what to do', async (_what, client, code, message, hint) => {
      const err = (await sourceOf(client(store))
        .fetchPage('orders', { limit: 10 })
        .catch((e: unknown) => e)) as Error & { code: string; hint: string };
      expect(err).toMatchObject({ code });
      expect(err.message).toMatch(message);
      expect(err.message).not.toContain('\n');
      expect(err.hint).toMatch(hint);
      expect(err.message).not.toContain(store.token);
    });
  });
});
