import type { Redis } from 'ioredis';
import { isCluster, type RedisConnection } from './connection.js';

/** Keys asked of each SCAN step, and so at most deleted by one UNLINK. */
const SCAN_COUNT = 1000;

/**
 * The servers that hold keys: the one server, or every master of a cluster (SCAN sees one node's keys only). The
 * cluster is asked first, so that its slots are known and nodes() lists every master.
 */
async function keyServers(redis: RedisConnection): Promise<Redis[]> {
  if (!isCluster(redis)) return [redis];
  await redis.ping();
  return redis.nodes('master');
}

/** Calls `onBatch` with each batch of the keys that match `pattern` (SCAN MATCH COUNT), server by server. */
export async function scanEachServer(
  redis: RedisConnection,
  pattern: string,
  onBatch: (keys: string[], server: Redis) => Promise<void> | void,
): Promise<void> {
  for (const server of await keyServers(redis)) {
    let cursor = '0';
    do {
      const [next, keys] = await server.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT);
      cursor = next;
      if (keys.length) await onBatch(keys, server);
    } while (cursor !== '0');
  }
}

/** How many keys are under a prefix (`{prefix}:*`). */
export async function countKeysUnder(redis: RedisConnection, prefix: string): Promise<number> {
  let n = 0;
  await scanEachServer(redis, `${prefix}:*`, (keys) => {
    n += keys.length;
  });
  return n;
}

/**
 * Deletes every key under a prefix (`{prefix}:*`) with UNLINK (freed in the background, Redis does not stall on a big
 * key), a SCAN batch at a time, on the server that holds them; answers how many went. On a cluster each key is
 * unlinked alone in a pipeline: a prefix without a hash tag spreads over slots, and a multi-key UNLINK across slots is
 * refused.
 */
export async function unlinkKeysUnder(redis: RedisConnection, prefix: string): Promise<number> {
  let n = 0;
  const cluster = isCluster(redis);
  await scanEachServer(redis, `${prefix}:*`, async (keys, server) => {
    if (!cluster) {
      n += await server.unlink(...keys);
      return;
    }
    const replies = (await server.pipeline(keys.map((k) => ['unlink', k])).exec()) ?? [];
    n += replies.reduce((sum, [err, count]) => sum + (err ? 0 : Number(count)), 0);
  });
  return n;
}
