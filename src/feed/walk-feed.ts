import type { StreamName } from '../records/stream-name.js';
import type { FetchPageOptions } from './upstream-client.js';
import type { SourcePage } from './feed-source.js';

export interface WalkFeedOptions {
  stream: StreamName;
  upstream: { fetchPage(stream: StreamName, o: FetchPageOptions): Promise<SourcePage> };
  /** Where to start (the stream's stored cursor; none: its start). */
  cursor: string | undefined;
  pageSize: number;
  signal?: AbortSignal;
  /** Told when a page had too many bytes of records and the rest is asked with a smaller limit. */
  onSmaller?: (limit: number) => void;
}

/** A page of the walk, with the cursor it was asked after. */
export interface WalkedPage {
  after: string | undefined;
  page: SourcePage;
  /** The feed said hasMore, yet gave an empty page and the same cursor: the walk ends here. */
  stalled: boolean;
}

/**
 * The feed's pages from a cursor until caught up (the page with hasMore false is the last), each asked after the
 * previous page's cursor. A page too large (FEED_PAGE_TOO_LARGE) is asked again with half the limit, down to one
 * record (one record always fits: FEED_MAX_PAGE_BYTES >= MAX_RECORD_BYTES). Moves no cursor: the caller does.
 */
export async function* walkFeed(o: WalkFeedOptions): AsyncGenerator<WalkedPage> {
  let cursor = o.cursor;
  let limit = o.pageSize;
  while (!o.signal?.aborted) {
    let page: SourcePage;
    try {
      page = await o.upstream.fetchPage(o.stream, { after: cursor, limit, signal: o.signal });
    } catch (err) {
      if ((err as { code?: unknown }).code !== 'FEED_PAGE_TOO_LARGE' || limit === 1) throw err;
      limit = Math.max(1, Math.floor(limit / 2));
      o.onSmaller?.(limit);
      continue;
    }
    const stalled = page.hasMore && page.items.length === 0 && page.cursor === cursor;
    yield { after: cursor, page, stalled };
    if (!page.hasMore || stalled) return;
    cursor = page.cursor;
  }
}
