import type { Queue } from 'bullmq';
import type { RedisConnection as Redis } from '../redis/connection.js';
import {
  FAILURE_GROUP_FIELD,
  FAILURE_GROUP_FOR_FIELD,
  failureGroupOf,
  RETRY_HELPS_FIELD,
  SUPERSEDED_FIELD,
  type FailureGroup,
} from '../queue/failure-group.js';

/** A failed job as grouping and retrying need it: no data. */
export interface FailedReason {
  id: string;
  failedReason: string | undefined;
  /** Its failure group, as recorded when it failed (src/queue/failure-group.ts). */
  group: FailureGroup;
  /** False when its failure was recorded as one no retry can help (a record wrong in itself). */
  retryHelps: boolean;
  /** When it was queued (epoch ms): a version of its record queued later is newer. */
  queuedAt: number;
  /** The newer version of its record that synced since, when that was recorded (src/ops/failures-now.ts). */
  supersededBy: string | undefined;
}

const FIELDS = ['failedReason', FAILURE_GROUP_FIELD, RETRY_HELPS_FIELD, FAILURE_GROUP_FOR_FIELD, 'timestamp', SUPERSEDED_FIELD] as const;

/**
 * Failed jobs of a queue from `start` to `end` (inclusive, newest first), as id, failedReason and failure group only,
 * in one round trip for the reasons (an HMGET of a few hash fields each): an import batch's data (up to ~300 KB) is
 * never read for this.
 */
export async function failedReasons(queue: Queue, redis: Redis, start: number, end: number): Promise<FailedReason[]> {
  const ids = await queue.getRanges(['failed'], start, end, false);
  if (ids.length === 0) return [];
  const pipe = redis.pipeline();
  for (const id of ids) pipe.hmget(queue.toKey(id), ...FIELDS);
  const replies = (await pipe.exec()) ?? [];
  return ids.map((id, i) => {
    const [err, value] = replies[i] ?? [];
    if (err) throw err;
    const [reason, group, helps, groupFor, timestamp, superseded] = (value as Array<string | null> | undefined) ?? [];
    const failedReason = reason || undefined;
    const { recorded, ...g } = failureGroupOf(failedReason, group || undefined, groupFor || undefined);
    // Written with the group: it counts only when the group is this failure's (failureGroupOf kept it).
    return {
      id,
      failedReason,
      group: g,
      retryHelps: !(helps === 'no' && recorded),
      queuedAt: Number(timestamp ?? 0),
      supersededBy: superseded || undefined,
    };
  });
}
