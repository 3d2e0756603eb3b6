import { markWork } from '../queue/dispatch/work-mark.js';
import type { Queue } from 'bullmq';
import type { StreamName } from '../records/stream-name.js';
import { failedReasons } from './failed-reasons.js';
import { supersededBy, supersededOf } from './failures-now.js';
import { findJob } from './job-inspect.js';
import type { StreamQueues } from '../queue/stream-queues.js';
import { messageOf } from '../errors/message-of.js';
import { redisKeys } from '../redis/connection.js';
import { refWords } from '../queue/wait/reference.js';
import { WAIT_SINCE_FIELD } from '../queue/wait/wait-at-reference.js';
import { waitOf } from '../queue/wait/wait-store.js';

export interface RetryOutcome {
  retried: Array<{ id: string; stream: StreamName }>;
  /** Ids that could not be retried, with why (unknown id, not failed, superseded). */
  refused: Array<{ id: string; reason: string }>;
  /**
   * Failed jobs `--all-failed` left alone: a newer version of each one's record synced since (src/ops/failures-now.ts),
   * so the failure is history and retrying it would send the older record again.
   */
  superseded: Array<{ id: string; by: string }>;
  /**
   * Ids of records that wait for what the service lacks (src/queue/wait/): not failed, nothing to retry; the command
   * looks at the catalog at once, which releases them if it exists now.
   */
  waiting: Array<{ id: string; stream: StreamName; waitsFor: string }>;
}

/** Why a superseded job is not retried. */
export const supersededText = (by: string) => `superseded by ${by}, a newer version of its record that synced: nothing to retry`;

/**
 * Puts the named failed jobs (record jobs or import batches) back to work, each with a fresh set of attempts; not a
 * failed job a newer version of its record superseded.
 */
export async function retryJobIds(queues: StreamQueues, ids: readonly string[]): Promise<RetryOutcome> {
  return retryEach(queues, ids, true);
}

/** Retries each job; `checkSuperseded` false when the caller kept only jobs not superseded. */
async function retryEach(queues: StreamQueues, ids: readonly string[], checkSuperseded: boolean): Promise<RetryOutcome> {
  const out: RetryOutcome = { retried: [], refused: [], superseded: [], waiting: [] };
  for (const id of ids) {
    const found = await findJob(queues, id);
    if (!found) {
      out.refused.push({ id, reason: `no such job under prefix ${queues.prefix}` });
      continue;
    }
    const state = await found.job.getState();
    const wait = state === 'delayed' && !found.batch ? await waitOf(queues.redis, redisKeys(queues.prefix), found.stream, id) : undefined;
    if (wait) {
      out.waiting.push({ id, stream: found.stream, waitsFor: wait.refs.map(refWords).join(', ') });
      continue;
    }
    if (state !== 'failed') {
      out.refused.push({ id, reason: `it is ${state}, not failed` });
      continue;
    }
    const by = found.batch || !checkSuperseded ? undefined : await supersededBy(queues, found.stream, id);
    if (by) {
      out.refused.push({ id, reason: supersededText(by) });
      continue;
    }
    try {
      // A record that waited before it failed waits afresh, its bound counted from now (src/queue/wait/).
      await queues.redis.hdel(found.queue.toKey(id), WAIT_SINCE_FIELD);
      await found.job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
      markWork(found.queue);
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

/**
 * Retries every failed job and import batch of the given streams (and reason group), page by page; a failed job a
 * newer version of its record superseded is left alone (history, not a failure now).
 */
export async function retryAllFailed(queues: StreamQueues, filter: RetryFilter = {}): Promise<RetryOutcome> {
  const ids: string[] = [];
  const superseded: RetryOutcome['superseded'] = [];
  for (const { stream, batch, queue } of queuesOf(queues, filter.streams ?? queues.names, filter.group?.batch)) {
    const total = await queue.getFailedCount();
    for (let start = 0; start < total; start += PAGE) {
      const page = (await failedReasons(queue, queues.redis, start, start + PAGE - 1)).filter(
        (job) => !filter.group || (job.group.code === filter.group.code && job.group.reason === filter.group.reason),
      );
      const by = batch ? new Map<string, string>() : await supersededOf(queues, stream, page);
      for (const job of page) {
        const newer = by.get(job.id);
        if (newer) superseded.push({ id: job.id, by: newer });
        else ids.push(job.id);
      }
    }
  }
  return { ...(await retryEach(queues, ids, false)), superseded };
}
