import type { Queue } from 'bullmq';
import type { RedisConnection as Redis } from '../redis/connection.js';
import { defaults } from '../../config/defaults.js';

/** How many failed bad-record jobs a stream keeps, and for how long (BAD_RECORDS_KEEP, BAD_RECORDS_KEEP_DAYS). */
export interface BadRecordRetention {
  keep: number;
  keepDays: number;
}

export const DEFAULT_BAD_RECORD_RETENTION: BadRecordRetention = { keep: defaults.badRecordsKeep, keepDays: defaults.badRecordsKeepDays };

/** Most jobs removed by one failure: a lowered limit is caught up with over the next failures. */
const MAX_SWEEP = 1000;

/** The sorted set of a queue's failed bad-record jobs (score: when it failed), beside the queue's own keys. */
export function badRecordsKey(queue: Pick<Queue, 'toKey'>): string {
  return queue.toKey('bad-records');
}

/**
 * Notes a job that failed as BAD_RECORD, then removes the oldest such jobs past `keep` or older than `keepDays`.
 * Only these: other failed jobs wait for an operator. A job retried since (no longer failed) is only forgotten.
 * BullMQ's removeOnFail cannot do this, as it trims every failed job of the queue alike. Answers how many went.
 */
export async function retainBadRecord(queue: Queue, redis: Redis, jobId: string, r: BadRecordRetention, now = Date.now()): Promise<number> {
  const key = badRecordsKey(queue);
  const cutoff = now - r.keepDays * 24 * 3600 * 1000;
  const [, [, count], [, expired]] = (await redis.multi().zadd(key, now, jobId).zcard(key).zcount(key, '-inf', cutoff).exec()) as [
    unknown,
    [unknown, number],
    [unknown, number],
  ];
  const over = Math.min(Math.max(count - r.keep, expired), MAX_SWEEP);
  if (over <= 0) return 0;
  const victims = await redis.zrange(key, '0', String(over - 1));
  let removed = 0;
  for (const id of victims) {
    if ((await queue.getJobState(id)) !== 'failed') continue;
    // A job another process is removing, or one just retried, is left alone.
    removed += await queue.remove(id).catch(() => 0);
  }
  await redis.zrem(key, ...victims);
  return removed;
}
