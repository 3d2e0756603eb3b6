import type { Redis } from 'ioredis';
import { expect } from 'vitest';
import type { DryRunPlan } from '../../src/app/dry-run.js';
import { canonicalJson } from '../../src/queue/canonical-hash.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import type { RedisConnection } from '../../src/redis/connection.js';

interface Call {
  method: string;
  path: string;
  body?: unknown;
}

/** A call as one comparable string: method, path and the body with its keys sorted. */
export const callKey = (c: Call): string => `${c.method} ${c.path} ${canonicalJson(c.body ?? null)}`;

/**
 * The writes a dry run planned, with each `{shipmentUrl}` replaced by the URL of the shipment the sandbox holds for
 * that order (the service assigns it under the `observed` profile), as sorted comparable strings.
 */
export function plannedWrites(plan: DryRunPlan, sandbox: Sandbox): string[] {
  const shipments = sandbox.admin.state().shipments;
  return plan.records
    .flatMap((r) => {
      const orderUrl = (
        r.calls.find((c) => (c.body as { primaryOrderUrl?: string }).primaryOrderUrl)?.body as { primaryOrderUrl?: string } | undefined
      )?.primaryOrderUrl;
      return r.calls.map((c) => {
        if (c.path !== '{shipmentUrl}') return c;
        const shipment = shipments.find((s) => s.primaryOrderUrl === orderUrl);
        if (!shipment) throw new Error(`no shipment in the sandbox for ${r.key} (${orderUrl})`);
        return { ...c, path: shipment.shipmentUrl };
      });
    })
    .map(callKey)
    .sort();
}

/** The writes the sandbox received from the `from`th logged request on, as sorted comparable strings. */
export function loggedWrites(sandbox: Sandbox, from = 0): string[] {
  return sandbox.admin
    .requests()
    .slice(from)
    .filter((r) => r.method !== 'GET')
    .map(callKey)
    .sort();
}

/** What a dry run may leave under its prefix: the catalog cache, budget counters, BullMQ queue metadata. Nothing else. */
export async function expectOnlyCachesUnder(redis: Redis, prefix: string): Promise<void> {
  const keys = await redis.keys(`${prefix}:*`);
  const other = keys.filter((k) => !/^(catalog|budget)/.test(k.slice(prefix.length + 1)) && !/:meta$/.test(k));
  expect(other).toEqual([]);
}

/** What may change under a prefix in a dry run: the catalog cache, the budget's counters, BullMQ's queue metadata. */
const CACHES = (prefix: string) => (key: string) => /^(catalog|budget)/.test(key.slice(prefix.length + 1)) || /:meta$/.test(key);

/**
 * Every key under `prefix` with its whole value (a job, a cursor, a progress hash, a mark, an index), the caches a dry
 * run may write aside: two snapshots are equal when nothing was queued, moved or marked in between. A key that expires
 * within a minute by itself (BullMQ's rate limiter window, a lock left by a run before) is left out: it may go between
 * two snapshots with nobody writing.
 */
export async function redisSnapshot(redis: RedisConnection, prefix: string): Promise<Record<string, unknown>> {
  const cache = CACHES(prefix);
  const keys = (await redis.keys(`${prefix}:*`)).filter((k) => !cache(k)).sort();
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const ttl = await redis.pttl(key);
    if (ttl === -2 || (ttl > 0 && ttl <= 60_000)) continue;
    const type = await redis.type(key);
    if (type === 'none') continue;
    if (type === 'string') out[key] = await redis.get(key);
    else if (type === 'hash') out[key] = await redis.hgetall(key);
    else if (type === 'list') out[key] = await redis.lrange(key, 0, -1);
    else if (type === 'set') out[key] = (await redis.smembers(key)).sort();
    else if (type === 'zset') out[key] = await redis.zrange(key, '0', '-1', 'WITHSCORES');
    else if (type === 'stream') out[key] = await redis.xrange(key, '-', '+');
    else out[key] = type;
  }
  return out;
}
