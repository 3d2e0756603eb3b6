import { afterEach, describe, expect, it } from 'vitest';
import { startFeedServer, type FeedServer } from '../../src/feed/feed-server.js';
import { FeedError, UpstreamClient } from '../../src/feed/upstream-client.js';
import { STREAMS } from '../../jobs/kinds.js';

const TOKEN = 'feed-token-s3cr3t-value';
const orders = Array.from({ length: 7 }, (_, i) => ({ orderId: `WEB-${i + 1}` }));

let feed: FeedServer | undefined;
afterEach(async () => {
  await feed?.close();
  feed = undefined;
});

async function failureOf(p: Promise<unknown>): Promise<FeedError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FeedError);
  return err as FeedError;
}

describe('upstream client', () => {
  describe('when the feed has more records than a page', () => {
    it('pages through them with the cursor and the bearer token', async () => {
      feed = await startFeedServer({ names: STREAMS, streams: { orders }, token: TOKEN });
      const client = new UpstreamClient({ url: feed.url, token: TOKEN });
      const seen: unknown[] = [];
      let after: string | undefined;
      let pages = 0;
      for (;;) {
        const page = await client.fetchPage('orders', { after, limit: 3 });
        pages++;
        seen.push(...page.items);
        after = page.cursor;
        if (!page.hasMore) break;
      }
      expect(pages).toBe(3);
      expect(seen).toEqual(orders);
      // Caught up: asking again from the last cursor gives nothing new until records are appended.
      expect(await client.fetchPage('orders', { after, limit: 3 })).toMatchObject({ items: [], hasMore: false });
      feed.append('orders', [{ orderId: 'WEB-8' }]);
      expect((await client.fetchPage('orders', { after, limit: 3 })).items).toEqual([{ orderId: 'WEB-8' }]);
    });
  });

  describe('when the token is wrong', () => {
    it('fails without retrying and never shows the token', async () => {
      feed = await startFeedServer({ names: STREAMS, streams: { orders }, token: 'the-right-one' });
      const client = new UpstreamClient({ url: feed.url, token: TOKEN, minRetryDelayMs: 1 });
      const err = await failureOf(client.fetchPage('orders', { limit: 3 }));
      expect(err.code).toBe('FEED_UNAUTHORIZED');
      expect(err.retryable).toBe(false);
      expect(err.message).toContain('orders');
      expect(err.message).toContain('401');
      expect(`${err.message} ${err.hint} ${JSON.stringify(err)}`).not.toContain(TOKEN);
      expect(feed.counters().requests.orders).toBe(1);
    });
  });

  describe('when the feed answers 503 a few times', () => {
    it('retries and gets the page', async () => {
      feed = await startFeedServer({ names: STREAMS, streams: { orders }, faults: { status503Times: 2 } });
      const client = new UpstreamClient({ url: feed.url, minRetryDelayMs: 1, maxRetryDelayMs: 5 });
      const page = await client.fetchPage('orders', { limit: 100 });
      expect(page.items).toHaveLength(7);
      expect(feed.counters().byStatus).toMatchObject({ '503': 2, '200': 1 });
    });

    it('gives up after its retries with a retryable error naming the status', async () => {
      feed = await startFeedServer({ names: STREAMS, streams: { orders }, faults: { status503Rate: 1 } });
      const client = new UpstreamClient({ url: feed.url, retries: 2, minRetryDelayMs: 1, maxRetryDelayMs: 5 });
      const err = await failureOf(client.fetchPage('orders', { limit: 100 }));
      expect(err).toMatchObject({ code: 'FEED_UNAVAILABLE', retryable: true, status: 503 });
      expect(feed.counters().requests.orders).toBe(3);
    });
  });

  describe('when nothing listens at the URL', () => {
    it('reports the feed unreachable, naming the URL but not the token', async () => {
      feed = await startFeedServer({ names: STREAMS });
      const url = feed.url;
      await feed.close();
      feed = undefined;
      const client = new UpstreamClient({ url, token: TOKEN, retries: 1, minRetryDelayMs: 1 });
      const err = await failureOf(client.fetchPage('boms', { limit: 10 }));
      expect(err.code).toBe('FEED_UNREACHABLE');
      expect(err.message).toContain(url);
      expect(err.message).not.toContain(TOKEN);
    });
  });

  describe('when the answer is not a page', () => {
    it('says which field is wrong', async () => {
      const { createServer } = await import('node:http');
      const server = createServer((_req, res) => res.end(JSON.stringify({ items: 'nope', cursor: 1 })));
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const { port } = server.address() as { port: number };
      try {
        const client = new UpstreamClient({ url: `http://127.0.0.1:${port}`, minRetryDelayMs: 1 });
        const err = await failureOf(client.fetchPage('orders', { limit: 10 }));
        expect(err.code).toBe('FEED_BAD_RESPONSE');
        expect(err.message).toMatch(/items: must be an array/);
        expect(err.message).toMatch(/cursor: must be a string/);
        expect(err.message).toMatch(/hasMore/);
      } finally {
        server.close();
      }
    });
  });
});
