import type { Queue } from 'bullmq';
import type { StreamName } from '../records/stream-name.js';

/** States an import batch is counted in (a completed batch is removed: its records are jobs then). */
export const INTAKE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;

/** Import batches of a stream by state: records that are not jobs yet (up to 1,000 a batch). */
export type IntakeCounts = Record<(typeof INTAKE_STATES)[number], number>;

/** Import batches per state on a stream's intake queue (prioritized ones count as waiting). */
export async function intakeCounts(
  queues: { intake(stream: StreamName): Pick<Queue, 'getJobCounts'> },
  stream: StreamName,
): Promise<IntakeCounts> {
  const raw = await queues.intake(stream).getJobCounts(...INTAKE_STATES, 'prioritized');
  const counts = Object.fromEntries(INTAKE_STATES.map((s) => [s, raw[s] ?? 0])) as IntakeCounts;
  counts.waiting += raw.prioritized ?? 0;
  return counts;
}
