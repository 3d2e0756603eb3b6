import type { StreamName } from '../records/stream-name.js';
import { failedReasons } from './failed-reasons.js';
import { queuesOf } from './job-retry.js';
import type { StreamQueues } from '../queue/stream-queues.js';

/** Failed jobs that share a stream and a failure group (code and subject-free reason): one cause, one fix, one retry. */
export interface FailedGroup {
  stream: StreamName;
  code: string;
  reason: string;
  count: number;
  /** A few job ids of the group, newest first. */
  examples: string[];
  /** Whether the group is of import batches whose records are not jobs yet (intake jobs), not of record jobs. */
  batch: boolean;
  /** Whether retrying can help (false: every job of it is a record wrong in itself; only a corrected record can). */
  retryHelps: boolean;
}

/**
 * Groups the failed jobs and failed import batches (up to `scan` per queue, newest first), largest groups first.
 * Reads ids and reasons only, never job data.
 */
export async function failedGroups(queues: StreamQueues, scan = 2000): Promise<FailedGroup[]> {
  const groups = new Map<string, FailedGroup>();
  for (const { stream, batch, queue } of queuesOf(queues, queues.names)) {
    for (const job of await failedReasons(queue, queues.redis, 0, scan - 1)) {
      const { code, reason } = job.group;
      const id = `${stream}\u0000${batch}\u0000${code}\u0000${reason}`;
      const g = groups.get(id) ?? { stream, code, reason, count: 0, examples: [], batch, retryHelps: false };
      g.count += 1;
      g.retryHelps ||= job.retryHelps;
      if (g.examples.length < 3) g.examples.push(job.id);
      groups.set(id, g);
    }
  }
  return [...groups.values()].sort((a, b) => b.count - a.count || a.stream.localeCompare(b.stream));
}
