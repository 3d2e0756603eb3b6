import type { RedisConnection as Redis, RedisKeys } from '../redis.js';
import type { StreamName } from '../records/stream-def.js';
import type { FeedPage, FetchPageOptions } from './upstream-client.js';

export interface PeekStreamOptions {
  stream: StreamName;
  upstream: { fetchPage(stream: StreamName, o: FetchPageOptions): Promise<FeedPage> };
  /** Read only: the stream's stored cursor. */
  redis: Redis;
  keys: RedisKeys;
  pageSize: number;
  signal?: AbortSignal;
}

/** One page read ahead: its records and where it started. */
export interface PeekedPage {
  /** The cursor the page was asked after (none: the stream's start). */
  after?: string;
  items: unknown[];
}

/**
 * Reads a stream from its stored cursor until caught up, page by page, as `pullStream` would, without taking the
 * pull lock, queuing anything or moving the cursor. A page too large is asked again with a smaller limit.
 */
export async function* peekStream(o: PeekStreamOptions): AsyncGenerator<PeekedPage> {
  let cursor = (await o.redis.get(o.keys.cursor(o.stream))) ?? undefined;
  let limit = o.pageSize;
  while (!o.signal?.aborted) {
    let page: FeedPage;
    try {
      page = await o.upstream.fetchPage(o.stream, { after: cursor, limit, signal: o.signal });
    } catch (err) {
      if ((err as { code?: unknown }).code !== 'FEED_PAGE_TOO_LARGE' || limit === 1) throw err;
      limit = Math.max(1, Math.floor(limit / 2));
      continue;
    }
    yield { after: cursor, items: page.items };
    if (!page.hasMore || (page.items.length === 0 && page.cursor === cursor)) return;
    cursor = page.cursor;
  }
}
