import type { Redis } from 'ioredis';
import { keyClassifier, readKeyBounds, type KeyBound } from '../kit/key-bounds.js';
import { keyUsage, type KeyUsage } from '../kit/redis-usage.js';

const span = (ms: number) =>
  ms >= 86_400_000
    ? `${Math.round(ms / 86_400_000)} days`
    : ms >= 3_600_000
      ? `${Math.round(ms / 3_600_000)} hours`
      : `${Math.round(ms / 1000)} s`;
/** BullMQ trims streams to whole nodes (`MAXLEN ~`): up to a node of entries past the cap (stream-node-max-entries). */
const STREAM_SLACK = 100;

/** Why a key breaks its documented bound, or undefined. */
async function problemOf(redis: Redis, u: KeyUsage, b: KeyBound | undefined): Promise<string | undefined> {
  const life = u.pttlMs < 0 ? 'no TTL' : `TTL ${span(u.pttlMs)}`;
  if (!b) return `${u.key} (${u.type}, ${life}) is in no table of docs/redis.md "Redis sizing"`;
  if (b.kind === 'ttl') {
    if (u.pttlMs < 0) return `${u.key} has no TTL; ${b.pattern} is documented to live ${b.text.split('|')[0]!.trim()}`;
    if (b.lifeMs === undefined || u.pttlMs > b.lifeMs)
      return `${u.key} has a TTL of ${span(u.pttlMs)}, longer than the ${b.text.split('|')[0]!.trim()} documented for ${b.pattern}`;
    return undefined;
  }
  if (b.kind !== 'capped') return undefined;
  const slack = u.type === 'stream' ? STREAM_SLACK : 0;
  if (b.cap !== undefined && u.length > b.cap + slack)
    return `${u.key} holds ${u.length}, more than the ${b.cap} documented for ${b.pattern}`;
  if (b.pattern.endsWith(':logs') && !(await redis.exists(u.key.slice(0, -':logs'.length)))) return `${u.key} outlived its job`;
  if (b.pattern.endsWith('{jobId}')) {
    const opts = await redis.hget(u.key, 'opts');
    if (u.type !== 'hash' || !opts) return `${u.key} (${u.type}) is not a BullMQ job`;
    if (!(JSON.parse(opts) as { removeOnComplete?: unknown }).removeOnComplete)
      return `${u.key} is a job kept for good once completed (no removeOnComplete)`;
  }
  return undefined;
}

/**
 * Every key of the prefix that is in none of the documented tables, or breaks its row: an expiring key without a
 * TTL or with a longer one, a capped key past its cap, a job never trimmed once completed, logs without their job.
 */
export async function keyOffenders(redis: Redis, prefix: string, bounds = readKeyBounds()): Promise<string[]> {
  const classify = keyClassifier(bounds, prefix);
  const out: string[] = [];
  for (const u of await keyUsage(redis, prefix)) {
    const p = await problemOf(redis, u, classify(u.key));
    if (p) out.push(p);
  }
  return out.sort();
}
