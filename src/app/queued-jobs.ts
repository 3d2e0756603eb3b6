import type { Job, JobType } from 'bullmq';
import { batchJobs } from '../queue/intake.js';
import type { IntakeData } from '../queue/intake-queue.js';
import type { JobData, QueueSet } from '../queue/queues.js';
import type { RecordJob } from '../queue/record-jobs.js';
import type { StreamName } from '../records/stream-name.js';

/** Jobs read from a queue at a time. */
const PAGE = 500;

/** The states a job waits in before a worker takes it, in the order workers take them. */
export const WAITING = ['waiting', 'prioritized', 'delayed'] as const;

/** Every job of `queue` in `state`, oldest first, a page at a time. */
async function* jobsIn<T>(queue: { getJobs(t: JobType[], s: number, e: number, asc: boolean): Promise<Job<T>[]> }, state: JobType) {
  for (let start = 0; ; start += PAGE) {
    const jobs = (await queue.getJobs([state], start, start + PAGE - 1, true)).filter((j): j is Job<T> => !!j);
    yield* jobs;
    if (jobs.length < PAGE) return;
  }
}

/**
 * The push backlog: what the stream's queues hold before a run (pushed records, an earlier import's, a backfill's, a
 * retried job), as the jobs a run's workers would take, in the order they would take them: the record jobs waiting,
 * then the records of the import batches not yet jobs. Read only; a job a worker has now (active) is not among them.
 */
export async function* queuedJobs(queues: QueueSet, stream: StreamName): AsyncGenerator<RecordJob> {
  for (const state of WAITING)
    for await (const job of jobsIn<JobData>(queues.get(stream), state))
      if (job.id) yield { name: stream, data: job.data, opts: { jobId: job.id } };
  for (const state of WAITING) for await (const batch of jobsIn<IntakeData>(queues.intake(stream), state)) yield* batchJobs(batch.data);
}
