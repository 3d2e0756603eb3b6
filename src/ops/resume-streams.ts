import { markWork } from '../queue/dispatch/work-mark.js';
import { redisKeys } from '../redis/connection.js';
import { closeBreaker, takeStreak } from '../queue/hold/refusal-state.js';
import { retryJobIds } from './job-retry.js';
import type { StreamQueues } from '../queue/stream-queues.js';
import type { StreamName } from '../records/stream-name.js';

/** What `resume` did to one stream. */
export interface ResumeResult {
  stream: StreamName;
  /** Whether its breaker had paused it (false: nothing to resume; its queue is made sure to run anyway). */
  wasPaused: boolean;
  /** When it was paused and why, as the breaker said. */
  since: string | null;
  reason: string | null;
  /** Jobs waiting (or delayed) that now run again, those retried below included. */
  waiting: number;
  /** Jobs the same service refusal failed before it paused the stream, put back to work with fresh attempts. */
  retried: string[];
}

/**
 * Resumes streams paused by their breaker (`inventory-sync resume`, the dashboard's button): the breaker closes first
 * (count, reason and each job's pushbacks start afresh, producers pull again), then the BullMQ queue resumes in every
 * process, and the jobs that waited run from their progress. Safe to repeat.
 */
export async function resumeStreams(queues: StreamQueues, streams: readonly StreamName[]): Promise<ResumeResult[]> {
  const keys = redisKeys(queues.prefix);
  const out: ResumeResult[] = [];
  for (const stream of streams) {
    const queue = queues.get(stream);
    const before = await closeBreaker(queues.redis, keys, stream);
    // A pause by one service refusal repeated: the jobs it failed before the pause go back with the ones that waited.
    const streak = await takeStreak(queues.redis, keys, stream, before.by);
    const retried = streak.length ? (await retryJobIds(queues, streak)).retried.map((r) => r.id) : [];
    const queuePaused = await queue.isPaused();
    // Counted before the resume: once resumed, workers take jobs at once and the count would race them.
    const c = await queue.getJobCounts('waiting', 'delayed', 'prioritized');
    if (queuePaused) await queue.resume();
    markWork(queue);
    out.push({
      stream,
      wasPaused: before.paused || queuePaused,
      since: before.since,
      reason: before.reason,
      waiting: (c.waiting ?? 0) + (c.delayed ?? 0) + (c.prioritized ?? 0),
      retried,
    });
  }
  return out;
}
