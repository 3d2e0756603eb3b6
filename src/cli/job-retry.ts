import { STREAMS, type StreamName } from '../queue/streams.js';
import { findJob } from './job-inspect.js';
import { splitReason } from './job-trace.js';
import type { StreamQueues } from './stream-queues.js';

export interface RetryOutcome {
  retried: Array<{ id: string; stream: StreamName }>;
  /** Ids that could not be retried, with why (unknown id, not failed). */
  refused: Array<{ id: string; reason: string }>;
}

/** Puts the named failed jobs back to work, each with a fresh set of attempts. */
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
      out.refused.push({ id, reason: err instanceof Error ? err.message : String(err) });
    }
  }
  return out;
}

/** The reason a failed job shares with others of its group: the code and the message without the record's id. */
export function reasonGroupOf(failedReason: string | undefined): { code: string; reason: string } {
  const r = splitReason(failedReason) ?? { code: 'UNKNOWN', message: '' };
  return { code: r.code, reason: r.message.replace(/^record [^:]*:\s*/, '') };
}

export interface RetryFilter {
  streams?: readonly StreamName[];
  /** Only jobs whose reason group matches. */
  group?: { code: string; reason: string };
}

/** Retries every failed job of the given streams (and reason group), page by page. */
export async function retryAllFailed(queues: StreamQueues, filter: RetryFilter = {}): Promise<RetryOutcome> {
  const ids: string[] = [];
  for (const stream of filter.streams ?? STREAMS) {
    const queue = queues.get(stream);
    const total = await queue.getFailedCount();
    for (let start = 0; start < total; start += 500) {
      for (const job of await queue.getFailed(start, start + 499)) {
        if (!job?.id) continue;
        if (filter.group) {
          const g = reasonGroupOf(job.failedReason);
          if (g.code !== filter.group.code || g.reason !== filter.group.reason) continue;
        }
        ids.push(job.id);
      }
    }
  }
  return retryJobIds(queues, ids);
}
