import type { Queue } from 'bullmq';
import type { RedisConnection as Redis } from '../redis/connection.js';
import { FAILURE_GROUP_FIELD, failureGroupOf, RETRY_HELPS_FIELD, retryHelpsOf, type FailureGroup } from '../queue/failure-group.js';

/** A failed job as grouping and retrying need it: no data. */
export interface FailedReason {
  id: string;
  failedReason: string | undefined;
  /** Its failure group, as recorded when it failed (src/queue/failure-group.ts). */
  group: FailureGroup;
  /** False when its failure was recorded as one no retry can help (a record wrong in itself). */
  retryHelps: boolean;
}

/**
 * Failed jobs of a queue from `start` to `end` (inclusive, newest first), as id, failedReason and failure group only,
 * in one round trip for the reasons (an HMGET of three hash fields each): an import batch's data (up to ~300 KB) is
 * never read for this.
 */
export async function failedReasons(queue: Queue, redis: Redis, start: number, end: number): Promise<FailedReason[]> {
  const ids = await queue.getRanges(['failed'], start, end, false);
  if (ids.length === 0) return [];
  const pipe = redis.pipeline();
  for (const id of ids) pipe.hmget(queue.toKey(id), 'failedReason', FAILURE_GROUP_FIELD, RETRY_HELPS_FIELD);
  const replies = (await pipe.exec()) ?? [];
  return ids.map((id, i) => {
    const [err, value] = replies[i] ?? [];
    if (err) throw err;
    const [reason, group, helps] = (value as Array<string | null> | undefined) ?? [];
    const failedReason = reason || undefined;
    const g = failureGroupOf(failedReason, group || undefined);
    return { id, failedReason, group: g, retryHelps: retryHelpsOf(failedReason, group || undefined, helps || undefined) };
  });
}
