import type { RedisConnection as Redis, RedisKeys } from '../redis/connection.js';
import type { StreamName } from '../records/stream-name.js';
import type { FeedPage, FetchPageOptions } from './upstream-client.js';
import { walkFeed } from './walk-feed.js';

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
  const cursor = (await o.redis.get(o.keys.cursor(o.stream))) ?? undefined;
  for await (const { after, page } of walkFeed({ ...o, cursor })) yield { after, items: page.items };
}
