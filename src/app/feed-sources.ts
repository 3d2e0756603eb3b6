import { defaults } from '../../config/defaults.js';
import type { Config } from '../../config/read-config.js';
import type { FeedSource, SourcePage } from '../feed/feed-source.js';
import { noteFound } from '../feed/store-found.js';
import type { FetchPageOptions, UpstreamClient } from '../feed/upstream-client.js';
import type { Kind } from '../kinds/kind.js';
import { addSecrets, type Logger } from '../log/logger.js';
import type { StreamName } from '../records/stream-name.js';
import type { RedisConnection as Redis, RedisKeys } from '../redis/connection.js';
import { StoreClient, type StoreClientOptions } from '../sources/shopify/store-client.js';
import { StoreSource } from '../sources/shopify/store-source.js';

/** The store that is a source in this configuration, by the name kinds declare it under (`feed.stores`). */
export const storeOf = (config: Pick<Config, 'shopify'>): string | undefined => (config.shopify ? 'shopify' : undefined);

/** The kind a configured store feeds: the first that declares it in `feed.stores`. */
export function storeKind(config: Pick<Config, 'shopify'>, kinds: readonly Kind[]): Kind | undefined {
  const store = storeOf(config);
  return store ? kinds.find((k) => k.feed.stores?.[store]) : undefined;
}

/** The store's Admin API client of the configuration (its token taught to the logger, read again from its file on a 401). */
export function storeClient(config: Config, logger: Logger, o: Pick<StoreClientOptions, 'onCost'> = {}): StoreClient | undefined {
  const s = config.shopify;
  if (!s) return undefined;
  addSecrets(logger, [s.token]);
  return new StoreClient({
    storeUrl: s.storeUrl,
    apiVersion: s.apiVersion,
    token: s.token,
    tokenFile: config.secretFiles.SHOPIFY_ACCESS_TOKEN,
    onTokenChange: (token) => {
      addSecrets(logger, [token]);
      logger.info('SHOPIFY_ACCESS_TOKEN read again from its file after a 401: it changed, the store is asked with the new one');
    },
    onTokenProblem: (line) => logger.warn(`SHOPIFY_ACCESS_TOKEN_FILE: ${line}`),
    onCost: o.onCost,
  });
}

export interface FeedSourcesOptions {
  config: Config;
  logger: Logger;
  kinds: readonly Kind[];
  redis: Redis;
  keys: RedisKeys;
  http?: UpstreamClient;
  /** A dry run: the store's pull notes nothing it finds (`onFound`). */
  dryRun?: boolean;
}

/**
 * Where each stream's pages come from: the configured store for the stream whose kind declares it, the HTTP feed
 * (UPSTREAM_URL) for the others; none when neither is set. The store's pull counts what it found before any webhook.
 */
export function feedSources(o: FeedSourcesOptions): FeedSource | undefined {
  const kind = storeKind(o.config, o.kinds);
  const client = kind && storeClient(o.config, o.logger);
  if (!kind || !client) return o.http;
  const spec = kind.feed.stores![storeOf(o.config)!]!;
  const fn = kind.record.transforms?.[spec];
  if (!fn) throw new Error(`${kind.stream}: its kind names the store transform ${spec}, which it does not declare`);
  const transform = { stream: kind.stream, name: spec, fn };
  const log = o.logger.child({ stream: kind.stream, source: 'shopify' });
  const floor = kind.job.goLive ? o.config.goLive[kind.job.goLive.setting] : undefined;
  const store = new StoreSource({
    client,
    stream: kind.stream,
    transform,
    lookBackMs: o.config.shopify!.lookBackSeconds * 1000,
    ...(floor ? { floor } : {}),
    graceMs: defaults.shopifyWebhookGraceSeconds * 1000,
    // Only beside webhooks: without a receiver, the pull is the only way in and finds everything first.
    ...(o.config.ingest.port && !o.dryRun
      ? {
          onFound: async (found: string[]) => {
            await noteFound(o.redis, o.keys, kind.stream, found);
            log.warn(
              { found: found.length, first: found.slice(0, 5) },
              `the store pull found ${found.length} order change(s) that no webhook brought`,
            );
          },
        }
      : {}),
  });
  return routed(store, o.http);
}

/** One source of the store's stream and the feed's others. */
function routed(store: StoreSource, http: UpstreamClient | undefined): FeedSource {
  return {
    serves: (stream) => store.serves(stream) || http !== undefined,
    fetchPage(stream: StreamName, p: FetchPageOptions): Promise<SourcePage> {
      if (store.serves(stream)) return store.fetchPage(stream, p);
      if (!http)
        return Promise.reject(new Error(`UPSTREAM_URL: is required to pull ${stream} (the store is the source of its own stream only)`));
      return http.fetchPage(stream, p);
    },
  };
}
