/** What each key of a prefix is and costs: its type, life, length and bytes (`MEMORY USAGE ... SAMPLES 0`). */
import type { Redis } from 'ioredis';

export interface KeyUsage {
  key: string;
  type: string;
  /** PTTL: -1 without a life. */
  pttlMs: number;
  /** Members, fields, entries or characters, by type. */
  length: number;
  bytes: number;
}

const LENGTH: Record<string, string> = { hash: 'hlen', list: 'llen', set: 'scard', zset: 'zcard', stream: 'xlen', string: 'strlen' };

/** Every key under `{prefix}:` with its usage (one server; on a cluster, pass each master). */
export async function keyUsage(redis: Redis, prefix: string): Promise<KeyUsage[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix.replace(/[*?[\]\\]/g, '\\$&')}:*`, 'COUNT', 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  const out: KeyUsage[] = [];
  for (let i = 0; i < keys.length; i += 500) {
    const batch = keys.slice(i, i + 500);
    const pipe = redis.pipeline();
    for (const k of batch) pipe.type(k).pttl(k).call('MEMORY', 'USAGE', k, 'SAMPLES', '0');
    const replies = (await pipe.exec()) ?? [];
    const rows = batch.map((key, j) => ({
      key,
      type: String(replies[3 * j]![1]),
      pttlMs: Number(replies[3 * j + 1]![1]),
      bytes: Number(replies[3 * j + 2]![1] ?? 0),
    }));
    const lens = redis.pipeline();
    for (const r of rows) lens.call(LENGTH[r.type] ?? 'exists', r.key);
    const lenReplies = (await lens.exec()) ?? [];
    rows.forEach((r, j) => out.push({ ...r, length: Number(lenReplies[j]![1] ?? 0) }));
  }
  return out.filter((u) => u.type !== 'none');
}

/** `INFO memory` used_memory, in bytes. */
export async function usedMemory(redis: Redis): Promise<number> {
  return Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1] ?? 0);
}
