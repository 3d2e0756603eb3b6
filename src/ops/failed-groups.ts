import type { StreamName } from '../records/stream-name.js';
import { failedReasons, type FailedReason } from './failed-reasons.js';
import { FAILED_SCAN, streamFailures, type StreamFailures } from './failures-now.js';
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
 * Groups the jobs failed now (src/ops/failures-now.ts: not those a newer version of their record superseded) and the
 * failed import batches (up to `scan` per queue, newest first), largest groups first. Reads ids and reasons only,
 * never job data. `failures`: each stream's, when the caller read them already (status).
 */
export async function failedGroups(
  queues: StreamQueues,
  scan = FAILED_SCAN,
  failures?: ReadonlyMap<StreamName, StreamFailures>,
): Promise<FailedGroup[]> {
  const groups = new Map<string, FailedGroup>();
  const add = (stream: StreamName, batch: boolean, job: FailedReason) => {
    const { code, reason } = job.group;
    const id = `${stream}\u0000${batch}\u0000${code}\u0000${reason}`;
    const g = groups.get(id) ?? { stream, code, reason, count: 0, examples: [], batch, retryHelps: false };
    g.count += 1;
    g.retryHelps ||= job.retryHelps;
    if (g.examples.length < 3) g.examples.push(job.id);
    groups.set(id, g);
  };
  for (const stream of queues.names) {
    const records = failures?.get(stream) ?? (await streamFailures(queues, stream, scan));
    for (const job of records.now) add(stream, false, job);
    for (const job of await failedReasons(queues.intake(stream), queues.redis, 0, scan - 1)) add(stream, true, job);
  }
  return [...groups.values()].sort((a, b) => b.count - a.count || a.stream.localeCompare(b.stream));
}
