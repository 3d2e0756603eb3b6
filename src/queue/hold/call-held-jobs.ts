import type { Queue } from 'bullmq';
import type { RedisConnection as Redis, RedisKeys } from '../../redis/connection.js';
import { promoteJob } from '../promote-job.js';

/**
 * The jobs that wait at a held call (call-hold.ts), one sorted set per call and stream (`keys.callHeld`), scored by
 * when each began to wait: the call's trial wakes the oldest, its release wakes them all at once. A job is delayed
 * until a little after the longest trial delay besides, so that one whose wake-up was lost (its process gone) still
 * runs, meets the hold again and waits again: none is lost.
 */

/** Keeps a job's id as waiting at `call`. */
export async function noteHeldJob(redis: Redis, keys: RedisKeys, call: string, stream: string, jobId: string): Promise<void> {
  await redis.zadd(keys.callHeld(call, stream), 'NX', Date.now(), jobId);
}

/** Forgets a job's id (released before it began to wait). */
export async function dropHeldJob(redis: Redis, keys: RedisKeys, call: string, stream: string, jobId: string): Promise<void> {
  await redis.zrem(keys.callHeld(call, stream), jobId);
}

/** Jobs that wait at `call`, per stream (ZCARD each). */
export async function heldJobCounts(
  redis: Redis,
  keys: RedisKeys,
  call: string,
  streams: readonly string[],
): Promise<Record<string, number>> {
  const counts = await Promise.all(streams.map((s) => redis.zcard(keys.callHeld(call, s))));
  return Object.fromEntries(streams.map((s, i) => [s, counts[i]!]));
}

/**
 * Wakes up to `max` of the jobs that wait at `call` (the oldest first), in the queues given by stream; answers how
 * many were woken. Each id is taken once across every process (ZPOPMIN).
 */
export async function wakeHeldJobs(
  redis: Redis,
  keys: RedisKeys,
  call: string,
  queues: ReadonlyMap<string, Queue>,
  max = Number.POSITIVE_INFINITY,
): Promise<number> {
  let woken = 0;
  for (const [stream, queue] of queues) {
    while (woken < max) {
      const batch = Math.min(200, max - woken);
      const popped = await redis.zpopmin(keys.callHeld(call, stream), batch);
      if (!popped.length) break;
      const ids = popped.filter((_, i) => i % 2 === 0);
      const promoted = await Promise.all(ids.map((id) => promoteJob(queue, id)));
      woken += promoted.filter(Boolean).length;
      if (ids.length < batch) break;
    }
  }
  return woken;
}
