import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startFeedServer, type FeedServer } from '../../src/feed/feed-server.js';
import { FeedError, UpstreamClient } from '../../src/feed/upstream-client.js';
import { STREAMS } from '../../jobs/kinds.js';

const OLD = 'feed-token-old-2b7d';
const NEW = 'feed-token-new-9e4a';
const orders = [{ orderId: 'WEB-1' }, { orderId: 'WEB-2' }];
const dir = mkdtempSync(join(tmpdir(), 'isync-token-file-'));
const tokenFile = join(dir, 'upstream-token');

let feed: FeedServer | undefined;
afterEach(async () => {
  await feed?.close();
  feed = undefined;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('upstream token from UPSTREAM_TOKEN_FILE', () => {
  describe('when the token was rotated in its file and the feed takes only the new one', () => {
    it('reads the file again on the 401 and asks once more at once with the new token', async () => {
      feed = await startFeedServer({ names: STREAMS, streams: { orders }, token: NEW });
      writeFileSync(tokenFile, `${NEW}\n`);
      const learned: string[] = [];
      const client = new UpstreamClient({ url: feed.url, token: OLD, tokenFile, onTokenChange: (t) => learned.push(t), retries: 0 });
      expect((await client.fetchPage('orders', { limit: 10 })).items).toEqual(orders);
      expect(feed.counters().byStatus).toMatchObject({ '401': 1, '200': 1 });
      expect(learned).toEqual([NEW]);
      // Later pages go with the new token from the start.
      await client.fetchPage('orders', { limit: 10 });
      expect(feed.counters().byStatus).toMatchObject({ '401': 1, '200': 2 });
    });
  });

  describe('when the file still holds the refused token', () => {
    it('fails as before after one request, without the token in the error', async () => {
      feed = await startFeedServer({ names: STREAMS, streams: { orders }, token: NEW });
      writeFileSync(tokenFile, `${OLD}\n`);
      const client = new UpstreamClient({ url: feed.url, token: OLD, tokenFile, retries: 0 });
      const err = await client.fetchPage('orders', { limit: 10 }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(FeedError);
      expect(err).toMatchObject({ code: 'FEED_UNAUTHORIZED', status: 401 });
      expect(JSON.stringify(err) + String((err as Error).message)).not.toContain(OLD);
      expect(feed.counters().requests.orders).toBe(1);
    });
  });
});
