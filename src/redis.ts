import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';

/** A connection to one Redis server or to a Redis Cluster; every command the program uses works on both. */
export type RedisConnection = Redis | Cluster;

export interface RedisNode {
  host: string;
  port: number;
}

/** Where Redis is: one server (`url`), or a Redis Cluster when `clusterNodes` (its seed nodes) is set. */
export interface RedisTarget {
  url: string;
  clusterNodes?: RedisNode[];
}

/** Options that belong to the cluster client itself; the rest go to each node's connection. */
const CLUSTER_LEVEL = ['lazyConnect', 'enableReadyCheck', 'enableOfflineQueue', 'enableAutoPipelining'] as const;

/**
 * A connection fit for BullMQ workers (maxRetriesPerRequest: null) and for the program's own keys: to the server
 * at a URL, or, for a target with cluster nodes, an ioredis Cluster (maxRetriesPerRequest: null on every node's
 * connection, as BullMQ requires of worker connections; MOVED and ASK are followed by the client).
 */
export function createRedis(url: string, opts?: RedisOptions): Redis;
export function createRedis(target: RedisTarget | string, opts?: RedisOptions): RedisConnection;
export function createRedis(target: RedisTarget | string, opts: RedisOptions = {}): RedisConnection {
  const o: RedisOptions = { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false, ...opts };
  if (typeof target === 'string' || !target.clusterNodes?.length) return new Redis(typeof target === 'string' ? target : target.url, o);
  const clusterOptions: ClusterOptions = {};
  const redisOptions: RedisOptions = { ...o };
  for (const k of CLUSTER_LEVEL) {
    if (k in redisOptions) (clusterOptions as Record<string, unknown>)[k] = redisOptions[k];
    delete redisOptions[k];
  }
  return new Cluster(target.clusterNodes, { ...clusterOptions, redisOptions });
}

export function isCluster(redis: RedisConnection): redis is Cluster {
  return (redis as { isCluster?: boolean }).isCluster === true;
}

/** `host:port,host:port,...` (REDIS_CLUSTER_NODES; `[v6]:port` for IPv6), or why it is not that. */
export function parseClusterNodes(text: string): RedisNode[] | { problem: string } {
  const nodes: RedisNode[] = [];
  for (const part of text.split(',').map((p) => p.trim())) {
    const m = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})$/.exec(part);
    const port = Number(m?.[2]);
    if (!m || port < 1 || port > 65535) return { problem: `"${part}" is not host:port` };
    nodes.push({ host: m[1]!.replace(/^\[|\]$/g, ''), port });
  }
  return nodes;
}

/** The nodes as REDIS_CLUSTER_NODES reads them. */
export function formatClusterNodes(nodes: RedisNode[]): string {
  return nodes.map((n) => `${n.host.includes(':') ? `[${n.host}]` : n.host}:${n.port}`).join(',');
}

/**
 * Whether keys that start with `prefix` hash by a tag inside it (Redis hashes by the text between the first `{`
 * and the next `}`, when not empty), so that all of them, BullMQ's included, live in one slot of a cluster.
 */
export function hasHashTag(prefix: string): boolean {
  const open = prefix.indexOf('{');
  return open >= 0 && prefix.indexOf('}', open + 1) > open + 1;
}

/** The prefix fit for a Redis Cluster: as given when it has a hash tag, else wrapped in one (`isync` → `{isync}`). */
export function clusterPrefix(prefix: string): string {
  return hasHashTag(prefix) ? prefix : `{${prefix}}`;
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
    /** A lock on one business key (orderId, location, productId) so that two jobs of it never run at once. */
    lock: (kind: string, key: string) => `${prefix}:lock:${kind}:${key}`,
    /** Last and next scheduled runs, as a hash. */
    schedule: () => `${prefix}:schedule`,
    /** A stream's circuit breaker (refusals in a row; paused, since when, why), as a hash. */
    breaker: (stream: string) => `${prefix}:breaker:${stream}`,
    /** Per job id, how often a stream's job was put back for a refusal while its breaker was closed, as a hash. */
    breakerPushbacks: (stream: string) => `${prefix}:breaker-pushbacks:${stream}`,
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

/** The URL without its password, fit for a message. */
export function safeRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'REDIS_URL';
  }
}

/** Where Redis is, fit for a message: the URL without its password, or the cluster's seed nodes. */
export function describeRedis(target: RedisTarget | string): string {
  if (typeof target === 'string') return safeRedisUrl(target);
  if (target.clusterNodes?.length) return `the Redis Cluster of ${formatClusterNodes(target.clusterNodes)}`;
  return safeRedisUrl(target.url);
}
