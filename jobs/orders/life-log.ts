import type { RedisConnection as Redis, RedisKeys } from '../../src/redis/connection.js';
import { defaults } from '../../config/defaults.js';
import type { JobContext, JobResult } from '../../src/queue/job-context.js';
import type { OrderInput } from './order-record.js';
import { isReturnNotice } from './order-record.js';
import { PermanentJobError } from '../../src/queue/job-errors.js';
import { isLeaseLost } from '../../src/queue/lease/lease-lost.js';
import { ABANDONED_TEXT } from '../../src/queue/lease/lease-words.js';

/** Entries kept per order: the newest. */
const KEEP = 50;

/** One snapshot of an order as its job took it: what it said, and what it did in the service. */
export interface SnapshotEntry {
  /** When the job ended (ISO). */
  at: string;
  jobId: string;
  /** The snapshot's updatedAt (none: arrival order). */
  updatedAt?: string;
  /** open, fulfilled, cancelled; `returns` for a return notice. */
  status: string;
  /** synced, unchanged, skipped (older, or nothing to do), failed; abandoned: stopped at the fence (a lost lease). */
  outcome: string;
  /** What it did (the job's summary) or why it failed. */
  said: string;
  /** The skip's reason when skipped as older. */
  older?: boolean;
  code?: string;
}

export function lifeLogKey(keys: Pick<RedisKeys, 'prefix'>, orderId: string): string {
  return `${keys.prefix}:order-life:${orderId}`;
}

/** The order's snapshots as taken, in the order of their updatedAt (arrival order where none is given). */
export async function readLifeLog(redis: Redis, keys: Pick<RedisKeys, 'prefix'>, orderId: string): Promise<SnapshotEntry[]> {
  const rows = await redis.lrange(lifeLogKey(keys, orderId), 0, -1);
  const entries = rows.flatMap((r) => {
    try {
      return [JSON.parse(r) as SnapshotEntry];
    } catch {
      return [];
    }
  });
  // Stable: entries without updatedAt keep their place after those before them.
  return entries
    .map((e, i) => ({ e, i }))
    .sort((a, b) => (a.e.updatedAt && b.e.updatedAt ? a.e.updatedAt.localeCompare(b.e.updatedAt) : 0) || a.i - b.i)
    .map(({ e }) => e);
}

async function append(ctx: JobContext, orderId: string, entry: SnapshotEntry): Promise<void> {
  const key = lifeLogKey(ctx.keys, orderId);
  await ctx.redis
    .multi()
    .rpush(key, JSON.stringify(entry))
    .ltrim(key, -KEEP, -1)
    .expire(key, defaults.orderProgressTtlSeconds)
    .exec()
    .catch((err: Error) =>
      ctx.logger.warn({ err: err.message }, "could not write the order's snapshot log; the sync itself is unaffected"),
    );
}

/** Runs a snapshot's sync and writes what it did (or why it failed) to the order's snapshot log. */
export async function logSnapshot(ctx: JobContext, record: OrderInput, run: () => Promise<JobResult>): Promise<JobResult> {
  const base = {
    jobId: ctx.jobId,
    ...(record.updatedAt ? { updatedAt: record.updatedAt } : {}),
    status: isReturnNotice(record) ? 'returns' : (record.status ?? 'fulfilled'),
  };
  try {
    const result = await run();
    const older = (result.details as { skipped?: string } | undefined)?.skipped === 'older';
    await append(ctx, record.orderId, {
      ...base,
      at: new Date().toISOString(),
      outcome: result.outcome,
      said: result.summary,
      ...(older ? { older } : {}),
    });
    return result;
  } catch (err) {
    // A retry or a delay is not the snapshot's end: only a failure for a person, and a write abandoned at the fence
    // (the newer execution of the job writes its own entry), are written.
    if (isLeaseLost(err))
      await append(ctx, record.orderId, {
        ...base,
        at: new Date().toISOString(),
        outcome: 'abandoned',
        said: ABANDONED_TEXT,
        code: 'LEASE_LOST',
      });
    else if (err instanceof PermanentJobError)
      await append(ctx, record.orderId, { ...base, at: new Date().toISOString(), outcome: 'failed', said: err.message, code: err.code });
    throw err;
  }
}
