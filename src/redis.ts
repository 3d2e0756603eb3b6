import { Redis, type RedisOptions } from 'ioredis';

/** A Redis connection fit for BullMQ workers (maxRetriesPerRequest: null) and for the program's own keys. */
export function createRedis(url: string, opts: RedisOptions = {}): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false, ...opts });
}

/**
 * Names of the program's own Redis keys (BullMQ's keys use the same prefix through its `prefix` option).
 * Every key starts with the configured prefix, so two prefixes never see each other's data.
 */
export function redisKeys(prefix: string) {
  return {
    prefix,
    /** Feed cursor of a stream. */
    cursor: (stream: string) => `${prefix}:cursor:${stream}`,
    /** Feed state of a stream (last poll, last page size, caught-up time) as a hash. */
    feedState: (stream: string) => `${prefix}:feed:${stream}`,
    /** Budget state of a request class (GCRA theoretical arrival time). */
    budget: (cls: string) => `${prefix}:budget:${cls}`,
    /** A 429 hold on a request class, expiring at the service's reset time. */
    budgetHold: (cls: string) => `${prefix}:budget-hold:${cls}`,
    /** Budget counters (requests by class, 429s, waited ms) as a hash. */
    budgetStats: () => `${prefix}:budget-stats`,
    /** The cached catalog (products, facilities). */
    catalog: () => `${prefix}:catalog`,
    /** Lock serialising catalog refreshes across processes. */
    catalogLock: () => `${prefix}:catalog-lock`,
    /** Progress of one order, keyed on orderId, as a hash. */
    order: (orderId: string) => `${prefix}:order:${orderId}`,
    /** Progress of one stock count, keyed on countId, as a hash. */
    count: (countId: string) => `${prefix}:count:${countId}`,
    /** Newest countDate applied per location, as a hash location -> date. */
    countWatermark: () => `${prefix}:count-watermark`,
    /** Progress of one BOM sync. */
    bom: (productId: string) => `${prefix}:bom:${productId}`,
    /** A lock on one business key (orderId, location, productId) so that two jobs of it never run at once. */
    lock: (kind: string, key: string) => `${prefix}:lock:${kind}:${key}`,
    /** Per-job attempt traces: API calls and outcomes, as a list of JSON entries. */
    trace: (queue: string, jobId: string) => `${prefix}:trace:${queue}:${jobId}`,
    /** Last and next scheduled runs, as a hash. */
    schedule: () => `${prefix}:schedule`,
  };
}

export type RedisKeys = ReturnType<typeof redisKeys>;

/** Deletes every key under a prefix (`{prefix}:*`); answers how many went. For demos, tests and benches. */
export async function deleteKeysUnder(redis: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let n = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) n += await redis.del(...keys);
  } while (cursor !== '0');
  return n;
}
