import { STREAMS, type StreamName } from '../queue/streams.js';
import { reasonGroupOf } from './job-retry.js';
import type { StreamQueues } from './stream-queues.js';

/** Failed jobs that share a stream and a reason: one cause, one fix, one retry. */
export interface FailedGroup {
  stream: StreamName;
  code: string;
  reason: string;
  count: number;
  /** A few job ids of the group, newest first. */
  examples: string[];
}

/** Groups the failed jobs (up to `scan` per stream, newest first), largest groups first. */
export async function failedGroups(queues: StreamQueues, scan = 2000): Promise<FailedGroup[]> {
  const groups = new Map<string, FailedGroup>();
  for (const stream of STREAMS) {
    for (const job of await queues.get(stream).getFailed(0, scan - 1)) {
      if (!job?.id) continue;
      const { code, reason } = reasonGroupOf(job.failedReason);
      const id = `${stream}\u0000${code}\u0000${reason}`;
      const g = groups.get(id) ?? { stream, code, reason, count: 0, examples: [] };
      g.count += 1;
      if (g.examples.length < 3) g.examples.push(job.id);
      groups.set(id, g);
    }
  }
  return [...groups.values()].sort((a, b) => b.count - a.count || a.stream.localeCompare(b.stream));
}
