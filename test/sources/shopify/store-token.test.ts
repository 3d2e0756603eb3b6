import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { orderKind } from '../../../jobs/orders/order-kind.js';
import { readFeedState } from '../../../src/feed/feed-state.js';
import { pullStream } from '../../../src/feed/producer.js';
import { startShopifyStore, type ShopifyStore } from '../../../src/sandbox/shopify/shopify-store.js';
import { queueWorld, type QueueWorld } from '../../queue/support.js';
import { clientOf, placeAt, sourceOf } from './store-kit.js';

let w: QueueWorld;
let store: ShopifyStore;
beforeEach(async () => {
  w = await queueWorld('store-token');
  store = await startShopifyStore();
});
afterEach(async () => {
  await store.close();
  await w.close();
});

describe('a store pull', () => {
  describe('when the token is revoked mid-run', () => {
    it('holds: the pull fails saying why, the cursor stays, no job fails; once the token works, it goes on from there', async () => {
      const source = sourceOf(clientOf(store));
      const pull = () =>
        pullStream({
          kind: orderKind,
          upstream: source,
          queue: w.queues.get('orders'),
          redis: w.redis,
          keys: w.keys,
          pageSize: 250,
          logger: w.logger,
        });
      placeAt(store, Date.now() - 60_000);
      expect(await pull()).toMatchObject({ queued: 1, caughtUp: true });
      const cursor = await w.redis.get(w.keys.cursor('orders'));
      store.admin.revokeToken();
      const later = placeAt(store, Date.now() - 30_000);
      await expect(pull()).rejects.toMatchObject({ code: 'STORE_UNAUTHORIZED', retryable: false });
      expect(await w.redis.get(w.keys.cursor('orders'))).toBe(cursor);
      expect((await readFeedState(w.redis, w.keys, 'orders')).lastError).toMatch(/refused the access token \(HTTP 401\)/);
      expect(await w.queues.get('orders').getJobCounts('failed')).toEqual({ failed: 0 });
      store.admin.restoreToken();
      expect(await pull()).toMatchObject({ queued: 1, caughtUp: true });
      const jobs = await w.queues.get('orders').getJobs(['waiting']);
      expect(jobs.map((j) => (j.data.record as { orderId: string }).orderId)).toContain(String(later.id));
    });
  });
});
