import type { RedisConnection as Redis, RedisKeys } from '../redis/connection.js';
import { readBreaker } from '../queue/stream-breaker.js';
import { readOutage } from '../queue/service-outage.js';

/**
 * The worker's /readyz line about its streams' breakers and the service outage: always ok (a paused stream waits for
 * `resume`, a held one for the service; restarting or unrouting the worker would not help), with each paused stream,
 * since when and why, and the outage, in `detail`.
 */
export async function pausedCheck(
  redis: Redis,
  keys: RedisKeys,
  streams: readonly string[],
): Promise<{ name: string; ok: boolean; detail?: string }> {
  const [paused, outage] = await Promise.all([
    Promise.all(streams.map((s) => readBreaker(redis, keys, s))).then((all) => all.filter((b) => b.paused)),
    readOutage(redis, keys),
  ]);
  if (!paused.length && !outage.open) return { name: 'streams', ok: true };
  const lines = paused.map(
    (b) => `${b.stream} paused since ${b.since ?? '?'} (${b.reason ?? 'no reason recorded'}); inventory-sync resume --stream ${b.stream}`,
  );
  // The service down: every stream holds and goes on by itself once a probe finds it answering.
  if (outage.open)
    lines.unshift(
      `the service is down since ${outage.since ?? '?'} (${outage.reason ?? 'no reason recorded'}): every stream holds; ` +
        `${outage.probes} probe(s), the next at ${outage.nextProbeAt ?? '?'}; goes on by itself`,
    );
  return { name: 'streams', ok: true, detail: lines.join('; ') };
}
