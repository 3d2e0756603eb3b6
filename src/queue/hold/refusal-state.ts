import type { RedisConnection as Redis, RedisKeys } from '../../redis/connection.js';
import { runScript } from '../../redis/scripts.js';
import { clipReason } from './hold.js';
import { CLEAR, COUNT, REPEAT } from './hold-scripts.js';

/**
 * The hold for `refusals` (the stream's "circuit breaker"), one per stream, in Redis (hash `keys.breaker(stream)`):
 * refusals about the account (not the record) counted in a row, any job that syncs resets the count (jobs that fail
 * for a reason of their own, such as bad records, neither count nor reset), and at the threshold the stream is held.
 * The caller pauses the stream's queue; `closeBreaker` (`resume`) releases it.
 */

/** What one stream's hold for refusals says, for status, /readyz, /metrics and the dashboard. */
export interface BreakerState {
  stream: string;
  paused: boolean;
  /** When it opened (ISO), while paused. */
  since: string | null;
  /** The refusal that opened it (`[CODE] message`), while paused. */
  reason: string | null;
  code: string | null;
  /** Refusals in a row so far (closed), or the count that opened it. */
  refusals: number;
  /** Whether the pause was told through the alert webhook. */
  alerted: boolean;
  /** What opened it: `repeated` when the same service refusal came again and again; null for refusals of the account. */
  by: string | null;
}

/** What one refusal did: the stream was held already, this refusal held it, or it still runs. */
export type RefusalOutcome =
  | { state: 'open' }
  | { state: 'tripped'; refusals: number }
  /** `pushbacks`: how often this job has now been put back for a refusal while the stream ran. */
  | { state: 'closed'; refusals: number; pushbacks: number };

/** A job's pushback count outlives its refusals by this long, in ms. */
const PUSHBACK_TTL_MS = 24 * 3600_000;
/** How long the ids of a streak are kept for `resume`, in ms (a pause may last a weekend and more). */
const STREAK_TTL_MS = 30 * 24 * 3600_000;

/** Counts one account refusal met by a job of the stream; holds the stream at `threshold` refusals in a row. */
export async function recordRefusal(
  redis: Redis,
  keys: RedisKeys,
  stream: string,
  r: { threshold: number; code: string; reason: string; jobId: string; now?: number },
): Promise<RefusalOutcome> {
  const args = [2, keys.breaker(stream), keys.breakerPushbacks(stream), r.threshold, r.now ?? Date.now()];
  const more = [r.code, clipReason(r.reason), r.jobId, 'count', 0, 0, PUSHBACK_TTL_MS];
  const [state, n, refusals] = (await runScript(redis, COUNT, [...args, ...more])) as [string, number, number];
  if (state === 'open') return { state: 'open' };
  if (state === 'tripped') return { state: 'tripped', refusals: Number(n) };
  return { state: 'closed', refusals: Number(refusals), pushbacks: Number(n) };
}

/**
 * Counts one service refusal that may repeat for every record (the same code and `msg` from the service): at
 * `threshold` of the same in a row the stream is held. Below it the job fails as before and its id is kept, so that
 * `resume` puts it back to work with the jobs that waited.
 */
export async function recordRepeat(
  redis: Redis,
  keys: RedisKeys,
  stream: string,
  r: { threshold: number; code: string; reason: string; jobId: string; signature: string; now?: number },
): Promise<{ state: 'open' | 'tripped' | 'closed'; same: number }> {
  const args = [2, keys.breaker(stream), keys.breakerStreak(stream), r.threshold, r.now ?? Date.now()];
  const more = [r.code, clipReason(r.reason), r.jobId, r.signature, STREAK_TTL_MS];
  const [state, same] = (await runScript(redis, REPEAT, [...args, ...more])) as ['open' | 'tripped' | 'closed', number];
  return { state, same: Number(same) };
}

/** A job of the stream ended well (synced, unchanged or skipped): refusals in a row end. */
export async function recordSuccess(redis: Redis, keys: RedisKeys, stream: string): Promise<void> {
  await runScript(redis, CLEAR, [2, keys.breaker(stream), keys.breakerStreak(stream), 'count', 'sameCount']);
}

/**
 * The jobs a repeated refusal failed before it held the stream (none when something else held it), taken: the list
 * is gone after.
 */
export async function takeStreak(redis: Redis, keys: RedisKeys, stream: string, by: string | null): Promise<string[]> {
  const ids = by === 'repeated' ? await redis.lrange(keys.breakerStreak(stream), 0, -1) : [];
  await redis.del(keys.breakerStreak(stream));
  return ids;
}

/** The hold for refusals of one stream as it is now. */
export async function readBreaker(redis: Redis, keys: RedisKeys, stream: string): Promise<BreakerState> {
  return breakerFrom(stream, await redis.hgetall(keys.breaker(stream)));
}

/** The hold for refusals of one stream from its hash as read (`keys.breaker(stream)`; `status` reads many in a pipeline). */
export function breakerFrom(stream: string, h: Readonly<Record<string, string>>): BreakerState {
  const paused = h.state === 'open';
  return {
    stream,
    paused,
    since: paused && h.since ? new Date(Number(h.since)).toISOString() : null,
    reason: paused ? (h.reason ?? null) : null,
    code: paused ? (h.code ?? null) : null,
    refusals: Number(h.count ?? 0),
    alerted: h.alerted === '1',
    by: paused ? (h.by ?? null) : null,
  };
}

/** Whether the stream is held for refusals (one HGET: producers ask before each pull). */
export async function isPaused(redis: Redis, keys: RedisKeys, stream: string): Promise<boolean> {
  return (await redis.hget(keys.breaker(stream), 'state')) === 'open';
}

/** Marks the pause as told; answers false when another process told it already (so it is told once). */
export async function claimAlert(redis: Redis, keys: RedisKeys, stream: string): Promise<boolean> {
  return (await redis.hsetnx(keys.breaker(stream), 'alerted', '1')) === 1;
}

/** Gives the claim back (the webhook failed), so that the next look tells it again. */
export async function releaseAlert(redis: Redis, keys: RedisKeys, stream: string): Promise<void> {
  await redis.hdel(keys.breaker(stream), 'alerted');
}

/** held → running(0) by a person: count, reason and every job's pushbacks start afresh. Answers what it was before. */
export async function closeBreaker(redis: Redis, keys: RedisKeys, stream: string): Promise<BreakerState> {
  const before = await readBreaker(redis, keys, stream);
  await redis.del(keys.breaker(stream));
  await redis.del(keys.breakerPushbacks(stream));
  return before;
}
