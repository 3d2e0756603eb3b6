import type { RedisConnection as Redis, RedisKeys } from '../redis.js';
import { readBreaker } from '../queue/stream-breaker.js';

/**
 * The worker's /readyz line about its streams' breakers: always ok (a paused stream waits for `resume`; restarting or
 * unrouting the worker would not help), with each paused stream, since when and why in `detail`.
 */
export async function pausedCheck(
  redis: Redis,
  keys: RedisKeys,
  streams: readonly string[],
): Promise<{ name: string; ok: boolean; detail?: string }> {
  const paused = (await Promise.all(streams.map((s) => readBreaker(redis, keys, s)))).filter((b) => b.paused);
  if (!paused.length) return { name: 'streams', ok: true };
  const detail = paused
    .map(
      (b) => `${b.stream} paused since ${b.since ?? '?'} (${b.reason ?? 'no reason recorded'}); inventory-sync resume --stream ${b.stream}`,
    )
    .join('; ');
  return { name: 'streams', ok: true, detail };
}
