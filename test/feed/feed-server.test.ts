import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startFeedServer, type FeedServer } from '../../src/feed/feed-server.js';
import { STREAMS } from '../../jobs/kinds.js';

let feed: FeedServer | undefined;
afterEach(async () => {
  await feed?.close();
  feed = undefined;
});

async function get(path: string, token?: string) {
  const res = await request(`${feed!.url}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
}

describe('feed server', () => {
  it('serves pages capped at its page size, with opaque cursors', async () => {
    feed = await startFeedServer({
      names: STREAMS,
      streams: { boms: Array.from({ length: 5 }, (_, i) => ({ productId: `P-${i}` })) },
      pageSize: 2,
    });
    const first = await get('/boms?limit=10');
    expect(first).toMatchObject({ status: 200, body: { items: [{ productId: 'P-0' }, { productId: 'P-1' }], hasMore: true } });
    expect(String(first.body.cursor)).not.toMatch(/^\d+$/);
    const second = await get(`/boms?after=${encodeURIComponent(String(first.body.cursor))}&limit=10`);
    expect(second.body.items).toEqual([{ productId: 'P-2' }, { productId: 'P-3' }]);
  });

  it('re-delivers a record appended again', async () => {
    feed = await startFeedServer({ names: STREAMS, streams: { orders: [{ orderId: 'A' }] } });
    const first = await get('/orders');
    feed.append('orders', [{ orderId: 'A' }]);
    const again = await get(`/orders?after=${encodeURIComponent(String(first.body.cursor))}`);
    expect(again.body).toMatchObject({ items: [{ orderId: 'A' }], hasMore: false });
  });

  it('refuses unknown cursors, unknown streams and missing tokens', async () => {
    feed = await startFeedServer({ names: STREAMS, token: 't0ken' });
    expect((await get('/orders?after=42', 't0ken')).status).toBe(400);
    expect((await get('/widgets', 't0ken')).status).toBe(404);
    expect((await get('/orders')).status).toBe(401);
    expect((await get('/orders', 't0ken')).status).toBe(200);
    expect(feed.counters().byStatus).toEqual({ '400': 1, '404': 1, '401': 1, '200': 1 });
  });

  it('injects 503s at the configured rate', async () => {
    feed = await startFeedServer({ names: STREAMS, faults: { status503Rate: 1 } });
    expect((await get('/orders')).status).toBe(503);
    feed.setFaults({});
    expect((await get('/orders')).status).toBe(200);
  });
});
