import type { Queue } from 'bullmq';
import type { RedisConnection as Redis } from '../redis.js';

/** A failed job as grouping and retrying need it: no data. */
export interface FailedReason {
  id: string;
  failedReason: string | undefined;
}

/**
 * Failed jobs of a queue from `start` to `end` (inclusive, newest first), as id and failedReason only, in one round
 * trip for the reasons: an import batch's data (up to ~300 KB) is never read for this.
 */
export async function failedReasons(queue: Queue, redis: Redis, start: number, end: number): Promise<FailedReason[]> {
  const ids = await queue.getRanges(['failed'], start, end, false);
  if (ids.length === 0) return [];
  const pipe = redis.pipeline();
  for (const id of ids) pipe.hget(queue.toKey(id), 'failedReason');
  const replies = (await pipe.exec()) ?? [];
  return ids.map((id, i) => {
    const [err, value] = replies[i] ?? [];
    if (err) throw err;
    return { id, failedReason: typeof value === 'string' && value ? value : undefined };
  });
}
