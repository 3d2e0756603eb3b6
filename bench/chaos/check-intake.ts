import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { intakeQueueName } from '../../src/queue/intake-queue.js';
import { STREAMS } from '../../jobs/kinds.js';
import { check, type CheckResult } from './check-types.js';

/** Every state a batch can be in; an expanded batch is removed, so none should be found in any of them. */
const STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'failed', 'completed'] as const;

/**
 * Every intake queue ends empty: each imported batch became its records' jobs and was removed. A batch left over
 * means records that never became jobs (waiting, active...) or a batch that could not be expanded (failed).
 */
export async function checkIntake(redis: Redis, prefix: string): Promise<CheckResult> {
  const violations: string[] = [];
  for (const stream of STREAMS) {
    const q = new Queue(intakeQueueName(stream), { connection: redis, prefix });
    try {
      const counts = await q.getJobCounts(...STATES);
      for (const s of STATES) {
        if ((counts[s] ?? 0) === 0) continue;
        const jobs = await q.getJobs([s], 0, 4);
        const shown = jobs.map((j) => (s === 'failed' ? `${j.id}: ${j.failedReason}` : String(j.id))).join('; ');
        violations.push(`${q.name}: ${counts[s]} batch(es) ${s} at the end (${shown})`);
      }
    } finally {
      await q.close();
    }
  }
  return check('every intake queue ends empty (no batch waiting, active, delayed or failed)', STREAMS.length, violations);
}
