import type { Dispatcher } from 'undici';
import { ConfigError, type Config } from '../../config/read-config.js';
import { Catalog } from '../catalog/catalog.js';
import { RequestBudget } from '../client/budget.js';
import { ServiceClient } from '../client/service-client.js';
import type { ApiCall } from '../client/service-api.js';
import { UpstreamClient } from '../feed/upstream-client.js';
import type { Logger } from '../logger.js';
import { createQueues } from '../queue/queues.js';
import type { RuntimeDeps } from '../queue/runtime.js';
import { createRedis, type RedisConnection as Redis, redisKeys } from '../redis.js';

export interface AppDeps extends RuntimeDeps {
  budget: RequestBudget;
  client: ServiceClient;
  catalog: Catalog;
  upstream?: UpstreamClient;
  /** Closes the queues, the HTTP pools, and Redis unless it was handed in. */
  close(): Promise<void>;
}

export interface BuildDepsOptions {
  /** A Redis connection already checked (e.g. by the CLI); left open by close(). Default: a new one from config.redis.url. */
  redis?: Redis;
  /** Called for every request to the service (metrics). */
  onCall?: (call: ApiCall) => void;
  /** undici dispatcher for the service (tests). */
  dispatcher?: Dispatcher;
}

/** The program's parts, wired from the configuration: Redis, budget, service client, catalog, feed client, queues. */
export function buildDeps(config: Config, logger: Logger, opts: BuildDepsOptions = {}): AppDeps {
  const service = config.service;
  if (!service) throw new ConfigError(['INVENTORY_BASE_URL: is required (with INVENTORY_ACCOUNT, INVENTORY_API_KEY, INVENTORY_API_SECRET) to reach the service']);
  const redis = opts.redis ?? createRedis(config.redis);
  const keys = redisKeys(config.redis.prefix);
  const budget = new RequestBudget({ redis, keys, budgets: service.budgets });
  const client = new ServiceClient({
    baseUrl: service.baseUrl,
    account: service.account,
    apiKey: service.apiKey,
    apiSecret: service.apiSecret,
    budget,
    entityTimeoutMs: service.entityTimeoutMs,
    collectionTimeoutMs: service.collectionTimeoutMs,
    readRetries: service.readRetries,
    maxResponseBytes: service.maxResponseBytes,
    dispatcher: opts.dispatcher,
    onCall: opts.onCall,
  });
  const catalog = new Catalog({ client, redis, keys, refreshSeconds: config.catalog.refreshSeconds, logger });
  const upstream = config.upstream
    ? new UpstreamClient({ url: config.upstream.url, token: config.upstream.token, maxRecordBytes: config.limits.maxRecordBytes, maxPageBytes: config.limits.feedMaxPageBytes })
    : undefined;
  const queues = createQueues({ connection: redis, prefix: config.redis.prefix, jobs: config.jobs });
  return {
    config,
    logger,
    redis,
    keys,
    budget,
    client,
    catalog,
    upstream,
    queues,
    async close() {
      await queues.close();
      await client.close();
      if (!opts.redis) await redis.quit().catch(() => redis.disconnect());
    },
  };
}
