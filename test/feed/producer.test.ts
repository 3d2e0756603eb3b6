import { Queue } from 'bullmq';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFeedServer, type FeedServer } from '../../src/feed/feed-server.js';
import { UpstreamClient } from '../../src/feed/upstream-client.js';
import { waitForIdle } from '../../src/queue/drain.js';
import { readFeedState } from '../../src/feed/feed-state.js';
import type { PullStreamOptions } from '../../src/feed/producer.js';
import { jobIdFor } from '../../src/queue/job-id.js';
import type { JobData } from '../../src/queue/queues.js';
import { done, order, pullOrders, queueWorld, testKind, type QueueWorld } from '../queue/support.js';
import { STREAMS } from '../../jobs/kinds.js';
import { orderKind } from '../../jobs/orders/order-kind.js';

let w: QueueWorld;
let feed: FeedServer;

beforeEach(async () => {
  w = await queueWorld('producer');
  feed = await startFeedServer({ names: STREAMS, pageSize: 100 });
});
afterEach(async () => {
  await feed.close();
  await w.close();
});

const pull = (over: Partial<PullStreamOptions> = {}) => pullOrders(w, new UpstreamClient({ url: feed.url, retries: 0 }), over);

const orders = (from: number, n: number) => Array.from({ length: n }, (_, i) => order(`WEB-${from + i}`));

describe('feed producer', () => {
  describe('when the feed has several pages', () => {
    it('fetches them back to back while hasMore and queues one job per record', async () => {
      feed.append('orders', orders(1, 250));
      const result = await pull();
      expect(result).toMatchObject({ pages: 3, queued: 250, duplicates: 0, invalid: 0, caughtUp: true, locked: false });
      expect(feed.counters().requests.orders).toBe(3);
      expect(await w.queues.get('orders').getWaitingCount()).toBe(250);
      const job = await w.queues.get('orders').getJob(jobIdFor(orderKind, order('WEB-7')));
      expect(job?.data).toEqual({ record: order('WEB-7'), source: 'feed' });
      expect(job?.name).toBe('orders');

      const state = await readFeedState(w.redis, w.keys, 'orders');
      expect(state).toMatchObject({ pages: 3, recordsQueued: 250, lastPageSize: 50, newestRecord: 'WEB-250' });
      expect(state.cursor).toBeTruthy();
      expect(state.caughtUpAt).toBeTruthy();
    });

    it('starts the next pull from the stored cursor', async () => {
      feed.append('orders', orders(1, 150));
      await pull();
      feed.append('orders', orders(151, 10));
      const again = await pull();
      expect(again).toMatchObject({ pages: 1, queued: 10, duplicates: 0 });
      expect(feed.counters().served.orders).toBe(160);
    });
  });

  describe('when queueing a page fails after it was fetched', () => {
    it('leaves the cursor where it was, and the next pull queues the page', async () => {
      feed.append('orders', orders(1, 30));
      const closed = new Queue<JobData>('orders', { connection: { url: w.url }, prefix: w.prefix });
      await closed.close();
      await expect(pull({ queue: closed })).rejects.toThrow();
      expect(await w.redis.get(w.keys.cursor('orders'))).toBeNull();
      expect(await w.queues.get('orders').getWaitingCount()).toBe(0);
      expect((await readFeedState(w.redis, w.keys, 'orders')).lastError).toBeTruthy();

      const retry = await pull();
      expect(retry).toMatchObject({ pages: 1, queued: 30 });
      expect(await w.queues.get('orders').getWaitingCount()).toBe(30);
      expect((await readFeedState(w.redis, w.keys, 'orders')).lastError).toBeUndefined();
    });
  });

  describe('when the feed delivers a record again', () => {
    it('does not create a second job for an identical record', async () => {
      feed.append('orders', [order('WEB-1'), order('WEB-2')]);
      await pull();
      feed.append('orders', [{ ...order('WEB-1') }, order('WEB-2')]);
      expect(await pull()).toMatchObject({ queued: 0, duplicates: 2 });
      expect(await w.queues.get('orders').getWaitingCount()).toBe(2);
    });

    it('counts key order as no difference', async () => {
      const a = order('WEB-1');
      const reordered = Object.fromEntries(Object.entries(a).reverse());
      expect(jobIdFor(orderKind, reordered)).toBe(jobIdFor(orderKind, a));
    });

    it('creates a new job for a corrected record', async () => {
      feed.append('orders', [order('WEB-1', 1)]);
      await pull();
      feed.append('orders', [order('WEB-1', 3)]);
      expect(await pull()).toMatchObject({ queued: 1, duplicates: 0 });
      const ids = (await w.queues.get('orders').getWaiting()).map((j) => j.id);
      expect(ids).toHaveLength(2);
      expect(ids.every((id) => id?.startsWith('orders-WEB-1-'))).toBe(true);
    });
  });

  describe('when records do not match their shape', () => {
    it('queues them as jobs that fail at once naming the record, the field and the reason', async () => {
      const bad = { ...order('WEB-9'), lines: [{ productId: 'MUG-BLUE', quantity: -1, unitPrice: 1, location: 'Main Warehouse / A-01' }] };
      const noKey = { origin: 'Main Warehouse', lines: [] };
      feed.append('orders', [order('WEB-1'), bad, noKey]);
      expect(await pull()).toMatchObject({ queued: 3, invalid: 2 });

      let runs = 0;
      const pool = await w.startPool([testKind('orders', async () => (runs++, done()))]);
      await waitForIdle([w.queues.get('orders')], { pollMs: 50 });
      await pool.close(1_000);

      expect(runs).toBe(1);
      const failed = await w.queues.get('orders').getFailed();
      const byId = new Map(failed.map((j) => [j.id, j]));
      const badJob = byId.get(jobIdFor(orderKind, bad));
      expect(badJob?.failedReason).toBe('[BAD_RECORD] record WEB-9: lines.0.quantity: must be greater than 0');
      expect(badJob?.attemptsMade).toBe(1);
      const noKeyId = jobIdFor(orderKind, noKey);
      expect(noKeyId).toMatch(/^orders-invalid-[0-9a-f]{12}$/);
      expect(byId.get(noKeyId)?.failedReason).toMatch(/^\[BAD_RECORD\] record \(no orderId\) orders-invalid-\w+: orderId: is required/);
    });
  });

  describe('when two processes pull the same stream at once', () => {
    it('lets only one of them pull', async () => {
      feed.append('orders', orders(1, 500));
      feed.setFaults({ latencyMs: 30 });
      const [a, b] = await Promise.all([pull(), pull()]);
      expect([a.locked, b.locked].sort()).toEqual([false, true]);
      expect(a.queued + b.queued).toBe(500);
      expect(feed.counters().requests.orders).toBe(5);
    });
  });
});
