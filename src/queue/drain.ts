import type { Job, Queue } from 'bullmq';
import { defaults } from '../../config/defaults.js';
import type { RedisConnection as Redis } from '../redis/connection.js';
import { batchLabel, intakeDataSchema, streamOfIntakeQueue } from './intake-queue.js';
import type { JobResult } from './job-context.js';
import { jobDataSchema, type JobData } from './queues.js';
import { recordLabel } from './record-jobs.js';
import { findKind } from '../records/records.js';
import type { KeyedKind } from '../records/record-kind.js';

/** States in which a job still has work ahead of it. Paused queues are not waited for. */
const PENDING = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children'] as const;

export interface WaitForIdleOptions {
  /** Pause between two looks, in ms. Default 200. */
  pollMs?: number;
  signal?: AbortSignal;
  /** Called after each look with the pending jobs per queue. */
  onPoll?: (pending: Record<string, number>) => void;
}

/** Jobs with work ahead of them, per queue; of a paused queue (its stream's breaker opened), only the active ones. */
export async function pendingCounts(queues: Queue[]): Promise<Record<string, number>> {
  const counts = await Promise.all(queues.map(async (q) => ((await q.isPaused()) ? q.getJobCounts('active') : q.getJobCounts(...PENDING))));
  return Object.fromEntries(queues.map((q, i) => [q.name, Object.values(counts[i]!).reduce((a, b) => a + b, 0)]));
}

/**
 * Resolves when no job of the given queues is waiting, active, delayed (retries included), prioritized
 * or waiting for children, seen twice in a row. Rejects with the signal's reason when aborted.
 */
export async function waitForIdle(queues: Queue[], o: WaitForIdleOptions = {}): Promise<void> {
  const pollMs = o.pollMs ?? defaults.drainPollMs;
  let idleLooks = 0;
  while (idleLooks < 2) {
    o.signal?.throwIfAborted();
    const pending = await pendingCounts(queues);
    o.onPoll?.(pending);
    idleLooks = Object.values(pending).every((n) => n === 0) ? idleLooks + 1 : 0;
    if (idleLooks < 2) await new Promise((r) => setTimeout(r, idleLooks ? Math.min(pollMs, 50) : pollMs));
  }
}

export interface FailedJobSummary {
  id: string;
  /** Business key, `line N`, or a placeholder for a record without a key. */
  key: string;
  /** `[CODE] message`. */
  reason: string;
  /** An import batch that could not become its records' jobs (the key names its lines), not one record's job. */
  batch?: true;
  /** False when no retry can help it (a record wrong in itself: recorded when it failed, src/queue/failure-group.ts). */
  retryHelps?: false;
}

export interface QueueSummary {
  completed: number;
  /** Of the completed, those that ended `skipped`: deliberately not applied (before go-live, superseded by a newer count). */
  skipped: number;
  failed: FailedJobSummary[];
}

/** Failed jobs read per page, newest first. */
const PAGE = 500;

export interface SummarizeOptions {
  /** Count jobs finished at or after this epoch ms. Default 0 (all). */
  since?: number;
  /** A connection to the queues' Redis (BullMQ 6 keeps its own client private). */
  redis: Redis;
  /** The streams' kinds, to name each failed record by its key. */
  streams: readonly KeyedKind[];
}

/** Completed and failed jobs per queue, with each failed job's id, key and `[CODE] message`. */
export async function summarize(queues: Queue[], o: SummarizeOptions): Promise<Record<string, QueueSummary>> {
  const since = o.since ?? 0;
  const out: Record<string, QueueSummary> = {};
  for (const q of queues) {
    // The completed set is scored by finish time: counting needs no job read.
    const completed = await o.redis.zcount(q.keys.completed!, since, '+inf');
    const failed: FailedJobSummary[] = [];
    for (let start = 0; ; start += PAGE) {
      const jobs = (await q.getJobs(['failed'], start, start + PAGE - 1, false)) as Array<Job<JobData, JobResult> | undefined>;
      const recent = jobs.filter((j): j is Job<JobData, JobResult> => !!j && (j.finishedOn ?? 0) >= since);
      failed.push(...recent.map((j) => describeFailed(q.name, j, o.streams)));
      if (jobs.length < PAGE || recent.length < jobs.length) break;
    }
    out[q.name] = { completed, skipped: completed ? await skippedSince(q, since, o.redis) : 0, failed };
  }
  return out;
}

/** Completed jobs since `since` whose result says `skipped` (one pipelined read of their results per page). */
async function skippedSince(q: Queue, since: number, redis: Redis): Promise<number> {
  const ids = await redis.zrangebyscore(q.keys.completed!, since, '+inf');
  let skipped = 0;
  for (let i = 0; i < ids.length; i += PAGE) {
    const pipe = redis.pipeline();
    for (const id of ids.slice(i, i + PAGE)) pipe.hget(q.toKey(id), 'returnvalue');
    for (const [err, value] of (await pipe.exec()) ?? []) {
      if (err || typeof value !== 'string') continue;
      try {
        if ((JSON.parse(value) as { outcome?: unknown } | null)?.outcome === 'skipped') skipped++;
      } catch {
        // A result that is not JSON is not a skip.
      }
    }
  }
  return skipped;
}

export function describeFailed(queueName: string, job: Job<JobData, JobResult>, streams: readonly KeyedKind[]): FailedJobSummary {
  if (streamOfIntakeQueue(queueName)) {
    const batch = intakeDataSchema.safeParse(job.data);
    return {
      id: String(job.id),
      key: batch.success ? batchLabel(batch.data) : String(job.id),
      reason: job.failedReason ?? '[UNKNOWN] no reason recorded',
      batch: true,
    };
  }
  const data = jobDataSchema.safeParse(job.data);
  const kind = findKind(streams, queueName);
  const key = data.success && kind ? recordLabel(kind, data.data, job.id) : String(job.id);
  return { id: String(job.id), key, reason: job.failedReason ?? '[UNKNOWN] no reason recorded' };
}
