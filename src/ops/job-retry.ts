import type { Queue } from 'bullmq';
import type { StreamName } from '../records/stream-name.js';
import { failedReasons } from './failed-reasons.js';
import { findJob } from './job-inspect.js';
import type { StreamQueues } from '../queue/stream-queues.js';
import { messageOf } from '../errors/message-of.js';

export interface RetryOutcome {
  retried: Array<{ id: string; stream: StreamName }>;
  /** Ids that could not be retried, with why (unknown id, not failed). */
  refused: Array<{ id: string; reason: string }>;
}

/** Puts the named failed jobs (record jobs or import batches) back to work, each with a fresh set of attempts. */
export async function retryJobIds(queues: StreamQueues, ids: readonly string[]): Promise<RetryOutcome> {
  const out: RetryOutcome = { retried: [], refused: [] };
  for (const id of ids) {
    const found = await findJob(queues, id);
    if (!found) {
      out.refused.push({ id, reason: `no such job under prefix ${queues.prefix}` });
      continue;
    }
    const state = await found.job.getState();
    if (state !== 'failed') {
      out.refused.push({ id, reason: `it is ${state}, not failed` });
      continue;
    }
    try {
      await found.job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
      out.retried.push({ id, stream: found.stream });
    } catch (err) {
      out.refused.push({ id, reason: messageOf(err) });
    }
  }
  return out;
}

export interface RetryFilter {
  streams?: readonly StreamName[];
  /**
   * Only jobs of this failure group (src/queue/failure-group.ts); with `batch`, only import batches (true) or only
   * record jobs (false).
   */
  group?: { code: string; reason: string; batch?: boolean };
}

/** Failed jobs read per page. */
const PAGE = 500;

/** The queues of the streams: record queues, intake queues (import batches), or both when `batch` is undefined. */
export function queuesOf(
  queues: StreamQueues,
  streams: readonly StreamName[],
  batch?: boolean,
): Array<{ stream: StreamName; batch: boolean; queue: Queue }> {
  return streams.flatMap((stream) => [
    ...(batch !== true ? [{ stream, batch: false, queue: queues.get(stream) }] : []),
    ...(batch !== false ? [{ stream, batch: true, queue: queues.intake(stream) }] : []),
  ]);
}

/** Retries every failed job and import batch of the given streams (and reason group), page by page. */
export async function retryAllFailed(queues: StreamQueues, filter: RetryFilter = {}): Promise<RetryOutcome> {
  const ids: string[] = [];
  for (const { queue } of queuesOf(queues, filter.streams ?? queues.names, filter.group?.batch)) {
    const total = await queue.getFailedCount();
    for (let start = 0; start < total; start += PAGE) {
      for (const job of await failedReasons(queue, queues.redis, start, start + PAGE - 1)) {
        if (filter.group) {
          const g = job.group;
          if (g.code !== filter.group.code || g.reason !== filter.group.reason) continue;
        }
        ids.push(job.id);
      }
    }
  }
  return retryJobIds(queues, ids);
}
