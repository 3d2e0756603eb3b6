/**
 * The ioredis options of every connection the program makes (its own and BullMQ's, which duplicates them for its
 * blocking connections), as BullMQ's "Going to production" asks of them: commands wait for a reconnection rather
 * than fail (maxRetriesPerRequest: null, the offline queue on), reconnection never gives up, and a primary turned
 * replica (READONLY after a failover) makes the connection find the primary again.
 */
import { rootCertificates, type ConnectionOptions } from 'node:tls';
import type { ClusterOptions, RedisOptions } from 'ioredis';
import type { RedisTarget } from '../../config/redis-target.js';

/** Delay before reconnection attempt `times` (ms): 100, 200, 400... up to 2 s, for ever (null would give up). */
export function reconnectDelay(times: number): number {
  return Math.min(50 * 2 ** Math.min(times, 6), 2_000);
}

/** A reply that says the server is a replica now (a failover happened under the connection). */
const isReadOnly = (err: Error) => err.message.startsWith('READONLY');

/** Options every connection gets, whatever the target. */
const BASE: RedisOptions = {
  maxRetriesPerRequest: null,
  enableReadyCheck: true,
  enableOfflineQueue: true,
  lazyConnect: false,
  retryStrategy: reconnectDelay,
};

/** TLS settings: Node's (with NODE_EXTRA_CA_CERTS), or the public roots and the private CA of REDIS_TLS_CA_FILE. */
export function tlsOptions(target: RedisTarget): ConnectionOptions {
  return target.tlsCa ? { ca: [...rootCertificates, target.tlsCa] } : {};
}

function credentials(target: RedisTarget): RedisOptions {
  return { ...(target.username ? { username: target.username } : {}), ...(target.password ? { password: target.password } : {}) };
}

/** One server at its URL. A READONLY reply reconnects (a DNS name moved to the new primary) and fails the command. */
export function singleOptions(target: RedisTarget, opts: RedisOptions): RedisOptions {
  const tls = target.url.startsWith('rediss://') ? { tls: tlsOptions(target) } : {};
  return { ...BASE, reconnectOnError: isReadOnly, ...tls, ...credentials(target), ...opts };
}

/**
 * The primary Sentinel names: asked of the sentinels at every (re)connection, followed at once on a failover
 * (failoverDetector: the sentinels' +switch-master), the sentinels retried for ever; a command refused with
 * READONLY reconnects and is sent again (2) to the new primary.
 */
export function sentinelOptions(target: RedisTarget, opts: RedisOptions): RedisOptions {
  const s = target.sentinel!;
  return {
    ...BASE,
    sentinels: s.nodes,
    name: s.name,
    ...(s.password ? { sentinelPassword: s.password } : {}),
    ...(s.tls ? { sentinelTLS: tlsOptions(target) } : {}),
    ...(target.tls ? { tls: tlsOptions(target), enableTLSForSentinelMode: true } : {}),
    ...credentials(target),
    ...(target.db ? { db: target.db } : {}),
    failoverDetector: true,
    sentinelRetryStrategy: reconnectDelay,
    sentinelReconnectStrategy: reconnectDelay,
    reconnectOnError: (err) => (isReadOnly(err) ? 2 : false),
    ...opts,
  };
}

/** Options that belong to the cluster client itself; the rest go to each node's connection. */
const CLUSTER_LEVEL = ['lazyConnect', 'enableReadyCheck', 'enableOfflineQueue', 'enableAutoPipelining'] as const;

/**
 * A Redis Cluster: maxRetriesPerRequest: null on every node's connection, as BullMQ requires of worker
 * connections; the nodes' credentials and TLS from the seeds' URLs (or REDIS_PASSWORD). With TLS the nodes'
 * addresses are not looked up again, so that a certificate made out to a name still matches (ioredis's advice).
 */
export function clusterOptions(target: RedisTarget, opts: RedisOptions): ClusterOptions {
  const redisOptions: RedisOptions = { ...BASE, ...credentials(target), ...(target.tls ? { tls: tlsOptions(target) } : {}), ...opts };
  const cluster: ClusterOptions = { clusterRetryStrategy: reconnectDelay };
  for (const k of CLUSTER_LEVEL) {
    if (k in redisOptions) (cluster as Record<string, unknown>)[k] = redisOptions[k];
    delete redisOptions[k];
  }
  if (target.tls) cluster.dnsLookup = (address, callback) => callback(null, address);
  return { ...cluster, redisOptions };
}
