import { sandboxEnv, type SandboxAccess } from '../../src/app/sandbox-config.js';

/**
 * The environment of a bench's worker process on a private Redis, the sandbox and a feed: budgets well above what a
 * bench spends (so that what it measures is not the budget), the catalog read once, the feed polled every second.
 */
export function benchWorkerEnv(o: { redisUrl: string; prefix: string; sandbox: SandboxAccess; feedUrl: string }): Record<string, string> {
  return {
    REDIS_URL: o.redisUrl,
    QUEUE_PREFIX: o.prefix,
    ...sandboxEnv(o.sandbox),
    INVENTORY_POST_PER_MINUTE: '6000',
    INVENTORY_GET_PER_MINUTE: '6000',
    INVENTORY_COLLECTION_PER_HOUR: '3000',
    UPSTREAM_URL: o.feedUrl,
    UPSTREAM_TOKEN: 'bench-token',
    CATALOG_REFRESH_SECONDS: '0',
    ORDER_POLL_SECONDS: '1',
  };
}
