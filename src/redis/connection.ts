import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { clusterOptions, sentinelOptions, singleOptions } from './options.js';
import type { RedisTarget } from '../../config/redis-target.js';

export {
  clusterPrefix,
  describeRedis,
  formatClusterNodes,
  parseRedisNodes,
  redisPasswords,
  redisSetting,
  safeRedisUrl,
} from '../../config/redis-target.js';
export type { ParsedNodes, RedisNode, RedisTarget, SentinelTarget } from '../../config/redis-target.js';

/** A connection to one Redis server or to a Redis Cluster; every command the program uses works on both. */
export type RedisConnection = Redis | Cluster;

/**
 * The one connection factory, for the program's own keys and for BullMQ (which duplicates a connection for its
 * blocking commands): to the server at a URL, to the primary Sentinel names (asked again at every reconnection),
 * or an ioredis Cluster for a target with cluster nodes. Every one waits through an outage or a failover rather
 * than fail (src/redis/options.ts).
 */
export function createRedis(url: string, opts?: RedisOptions): Redis;
export function createRedis(target: RedisTarget | string, opts?: RedisOptions): RedisConnection;
export function createRedis(target: RedisTarget | string, opts: RedisOptions = {}): RedisConnection {
  const t: RedisTarget = typeof target === 'string' ? { url: target } : target;
  if (t.sentinel) return new Redis(sentinelOptions(t, opts));
  if (t.clusterNodes?.length) return new Cluster(t.clusterNodes, clusterOptions(t, opts));
  return new Redis(t.url, singleOptions(t, opts));
}

export function isCluster(redis: RedisConnection): redis is Cluster {
  return (redis as { isCluster?: boolean }).isCluster === true;
}

/**
 * Names of the program's own Redis keys (BullMQ's keys use the same prefix through its `prefix` option); each kind
 * of job names its own under the same prefix (jobs/<kind>/, its declaration's `redisKeys`).
 * Every key starts with the configured prefix, so two prefixes never see each other's data.
 */
export function redisKeys(prefix: string) {
  return {
    prefix,
    /** Feed cursor of a stream. */
    cursor: (stream: string) => `${prefix}:cursor:${stream}`,
    /** Feed state of a stream (last poll, last page size, caught-up time) as a hash. */
    feedState: (stream: string) => `${prefix}:feed:${stream}`,
    /** Until when (epoch ms) a stream's failed jobs have been told by an alert (src/ops/alerts.ts). */
    alertFailedSeen: (stream: string) => `${prefix}:alert:failed-seen:${stream}`,
    /** Budget state of a request class (GCRA theoretical arrival time). */
    budget: (cls: string) => `${prefix}:budget:${cls}`,
    /** A 429 hold on a request class, expiring at the service's reset time. */
    budgetHold: (cls: string) => `${prefix}:budget-hold:${cls}`,
    /** A budget lane's share when another client of the account spends it too (AIMD factor, reason, the service's headers), as a hash. */
    budgetShare: (lane: string) => `${prefix}:budget-share:${lane}`,
    /** A budget lane's requests by send time (a ring of buckets over two windows), for the adaptive rate, as a hash. */
    budgetSent: (lane: string) => `${prefix}:budget-sent:${lane}`,
    /**
     * A budget lane's share as last learnt for one account (factor, when, the ceiling a 429 showed), as a hash that
     * outlives the processes by a few windows: a fresh process starts from it rather than from its slow start.
     */
    budgetLearnt: (lane: string, account: string) => `${prefix}:budget-learnt:${lane}:${account}`,
    /** Budget counters (requests by class, 429s, waited ms) as a hash. */
    budgetStats: () => `${prefix}:budget-stats`,
    /** The cached catalog (products, facilities). */
    catalog: () => `${prefix}:catalog`,
    /** Lock serialising catalog refreshes across processes. */
    catalogLock: () => `${prefix}:catalog-lock`,
    /** A lock on one business key (orderId, location, productId) so that two jobs of it never run at once. */
    lock: (kind: string, key: string) => `${prefix}:lock:${kind}:${key}`,
    /** A job execution's lease on its record (token, version, job id), renewed while it runs (src/queue/lease/). */
    lease: (stream: string, key: string) => `${prefix}:lease:${stream}:${key}`,
    /** A record's lease counter and the intent of the write its last fenced execution sent, as a hash (src/queue/lease/). */
    fence: (stream: string, key: string) => `${prefix}:fence:${stream}:${key}`,
    /** A stream's current interval slot claimed by one process (its ticker), expiring just before the next slot. */
    pullClaim: (stream: string) => `${prefix}:pull-claim:${stream}`,
    /** Last and next scheduled runs, as a hash. */
    schedule: () => `${prefix}:schedule`,
    /** The make-up of a scheduler's missed run claimed by one process (its slot), while it runs. */
    makeUpClaim: (scheduler: string) => `${prefix}:make-up:${scheduler}`,
    /** A stream's circuit breaker (refusals in a row; paused, since when, why), as a hash. */
    breaker: (stream: string) => `${prefix}:breaker:${stream}`,
    /** Per job id, how often a stream's job was put back for a refusal while its breaker was closed, as a hash. */
    breakerPushbacks: (stream: string) => `${prefix}:breaker-pushbacks:${stream}`,
    /** Ids of a stream's jobs failed by one service refusal repeated in a row (at most the threshold), for resume. */
    breakerStreak: (stream: string) => `${prefix}:breaker-streak:${stream}`,
    /** The service down for everything (failures in a row; open, since when, why, the next probe), as a hash. */
    outage: () => `${prefix}:outage`,
    /** The last outage that ended (since, ended, records that waited, whether told), as a hash. */
    outageLast: () => `${prefix}:outage-last`,
    /** Each named call of the service's hold (failures in a row; held since when, why, its trials), fields `{call}:*` of one hash. */
    callHolds: () => `${prefix}:call-holds`,
    /** The ids of a stream's jobs that wait at a held call, scored by when they began to wait. */
    callHeld: (call: string, stream: string) => `${prefix}:call-held:${call}:${stream}`,
    /** A stream's records that wait for a missing reference (src/queue/wait/): job id -> `{refs, since}` as JSON. */
    waiting: (stream: string) => `${prefix}:waiting:${stream}`,
    /** The ids of a stream's jobs that wait for one reference (`product:MUG-ORANGE`), scored by when they began to wait. */
    waitFor: (stream: string, ref: string) => `${prefix}:wait-for:${stream}:${ref}`,
    /** What is waited for: a set of `[stream, ref]` as JSON, each with its waitFor key. */
    waitRefs: () => `${prefix}:wait-refs`,
    /** Held by the process that looks at the catalog for the waiting records, for one look interval. */
    waitLook: () => `${prefix}:wait-look`,
    /** The running workers, one field per process (what it pulls and where it takes pushes), refreshed while it runs. */
    workers: () => `${prefix}:workers`,
    /** A pushed delivery's id seen (its records stored), per stream, kept a day: the same id again queues nothing. */
    ingestSeen: (stream: string, deliveryHash: string) => `${prefix}:ingest-seen:${stream}:${deliveryHash}`,
    /** A store source's snapshots found by its pull before any webhook brought them (a sorted set by when found). */
    storeFound: (stream: string) => `${prefix}:store-found:${stream}`,
  };
}

export type RedisKeys = ReturnType<typeof redisKeys>;

/**
 * Deletes every key under a prefix (`{prefix}:*`); answers how many went. For demos, tests and benches.
 * On a cluster SCAN sees one node's keys only, so it runs on every master, and each key is deleted alone
 * (a multi-key DEL across slots is refused).
 */
export async function deleteKeysUnder(redis: RedisConnection, prefix: string): Promise<number> {
  let n = 0;
  if (isCluster(redis)) {
    await redis.ping(); // waits until the slots are known, so nodes() lists every master
    for (const node of redis.nodes('master')) {
      await scanKeys(node, `${prefix}:*`, async (keys) => {
        const replies = (await node.pipeline(keys.map((k) => ['del', k])).exec()) ?? [];
        n += replies.reduce((sum, [err, count]) => sum + (err ? 0 : Number(count)), 0);
      });
    }
    return n;
  }
  await scanKeys(redis, `${prefix}:*`, async (keys) => {
    n += await redis.del(...keys);
  });
  return n;
}

async function scanKeys(server: Redis, pattern: string, onBatch: (keys: string[]) => Promise<void>): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await server.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    if (keys.length) await onBatch(keys);
  } while (cursor !== '0');
}
