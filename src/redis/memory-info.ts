import { isCluster, type RedisConnection as Redis } from './connection.js';

/** What Redis says of its memory: what it uses, and its maxmemory (0: no limit set). */
export interface RedisMemory {
  usedBytes: number;
  maxBytes: number;
}

/** used_memory and maxmemory of one INFO memory answer. */
function parse(info: string): RedisMemory {
  const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? 0);
  return { usedBytes: field('used_memory'), maxBytes: field('maxmemory') };
}

/** The share of its limit a node uses (its bytes when it has no limit, so the fullest node still sorts first). */
const fullness = (m: RedisMemory) => (m.maxBytes > 0 ? m.usedBytes / m.maxBytes : m.usedBytes / Number.MAX_SAFE_INTEGER);

/**
 * Redis's memory from INFO memory; on a Redis Cluster, the fullest master's (a prefix lives on one, and the first to
 * fill refuses writes first).
 */
export async function readRedisMemory(redis: Redis): Promise<RedisMemory> {
  if (!isCluster(redis)) return parse(await redis.info('memory'));
  const all = await Promise.all(redis.nodes('master').map(async (node) => parse(await node.info('memory'))));
  return all.reduce((a, b) => (fullness(b) > fullness(a) ? b : a), { usedBytes: 0, maxBytes: 0 });
}
