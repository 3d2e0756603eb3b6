import type { Config } from '../../config/read-config.js';
import type { FeedSource } from '../feed/feed-source.js';
import type { Kind } from '../kinds/kind.js';
import { storeKind } from './feed-sources.js';

/**
 * The kinds `worker` pulls: those its sources serve (a store alone serves its own stream), the store's stream paced
 * by SHOPIFY_POLL_SECONDS when pushes are on (webhooks give the latency, the pull finds what they missed), by the
 * kind's own poll otherwise.
 */
export function pulledKinds(d: { config: Config; upstream?: FeedSource; kinds: readonly Kind[] }, kinds: readonly Kind[]): Kind[] {
  const store = storeKind(d.config, d.kinds);
  const served = kinds.filter((k) => d.upstream?.serves?.(k.stream) ?? true);
  if (!store || !d.config.ingest.port || !d.config.shopify) return served;
  const every = d.config.shopify.pollSeconds;
  return served.map((k) => (k.stream === store.stream ? { ...k, feed: { ...k.feed, pull: () => ({ every }) } } : k));
}
