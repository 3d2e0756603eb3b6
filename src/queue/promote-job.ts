import { markWork } from './dispatch/work-mark.js';
import { Job, type Queue } from 'bullmq';

/** Moves a delayed job to wait now; false when it is gone or no longer delayed (it ran meanwhile). */
export async function promoteJob(queue: Queue, jobId: string): Promise<boolean> {
  const job = await Job.fromId(queue, jobId);
  if (!job) return false;
  return job.promote().then(
    () => {
      markWork(queue);
      return true;
    },
    () => false,
  );
}
