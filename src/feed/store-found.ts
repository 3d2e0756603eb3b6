import type { RedisConnection as Redis, RedisKeys } from '../redis/connection.js';

const HOUR_MS = 3600_000;
/** How long a found snapshot is remembered (the count covers the last hour; a day is kept for a look back). */
const KEEP_MS = 24 * HOUR_MS;

/**
 * Snapshots a store's pull found before any webhook brought them (their job was new, and they were older than the
 * webhooks' grace): a sorted set per stream, member `{key}@{updatedAt}`, scored by when found. Many in an hour mean
 * the webhooks are lost (a subscription deleted, the receiver unreachable).
 */
export async function noteFound(redis: Redis, keys: RedisKeys, stream: string, found: readonly string[], now = Date.now()): Promise<void> {
  if (!found.length) return;
  const key = keys.storeFound(stream);
  await redis
    .multi()
    .zadd(key, ...found.flatMap((m) => [now, m]))
    .zremrangebyscore(key, '-inf', now - KEEP_MS)
    .pexpire(key, KEEP_MS)
    .exec();
}

/** How many the pull found that no webhook brought, in the last hour. */
export function foundInLastHour(redis: Redis, keys: RedisKeys, stream: string, now = Date.now()): Promise<number> {
  return redis.zcount(keys.storeFound(stream), now - HOUR_MS, '+inf');
}

/** Whether a stream's stored cursor is a store pull's (src/sources/: `{store}:` and JSON), not the HTTP feed's. */
export function isStoreCursor(cursor: string | undefined | null): boolean {
  return !!cursor && /^[a-z]+:\{/.test(cursor);
}
