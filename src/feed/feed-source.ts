import type { StreamName } from '../records/stream-name.js';
import type { FeedPage, FetchPageOptions } from './upstream-client.js';

/**
 * A page as a source answers it: the feed's page, and, from a source that wants to know (a store, src/sources/),
 * `queued`: told once the page's records are queued which of them were new jobs (by index), so it can count what it
 * found first.
 */
export type SourcePage = FeedPage & { queued?(fresh: readonly boolean[]): Promise<void> };

/**
 * What pulls read the streams from: the HTTP feed (upstream-client.ts), a store (src/sources/), or both, each stream
 * from one of them (src/app/feed-sources.ts). `serves` says which streams it has pages of; without it, every stream.
 */
export interface FeedSource {
  fetchPage(stream: StreamName, o: FetchPageOptions): Promise<SourcePage>;
  serves?(stream: StreamName): boolean;
}
