import { Queue } from 'bullmq';
import type { CheckedKind } from '../records/record-kind.js';
import type { JobContext } from './job-context.js';
import { recordJobOptions, type JobData } from './queues.js';
import { addJobs, recordJob } from './record-jobs.js';

/** A record a job splits off its own record, with the file line it came from (when it came from a file). */
export interface SplitRecord {
  record: unknown;
  line?: number | undefined;
}

/**
 * Queues records that a job of `kind` split off its own record (a count's row whose product the service lacks): one
 * job each on the job's own stream, `source: 'split'`, with the usual job id of its content, so the job running again
 * (a retry, a re-delivery) queues nothing new. Answers their job ids.
 */
export async function queueSplitRecords(
  ctx: Pick<JobContext, 'redis' | 'keys' | 'jobs' | 'stream'>,
  kind: CheckedKind,
  records: readonly SplitRecord[],
): Promise<string[]> {
  const jobs = records.map((r) => recordJob(kind, r.record, 'split', r.line).job);
  if (!jobs.length) return [];
  // The shared connection: closing this queue leaves it open.
  const queue = new Queue<JobData>(ctx.stream, {
    connection: ctx.redis,
    prefix: ctx.keys.prefix,
    defaultJobOptions: recordJobOptions(ctx.jobs),
  });
  queue.on('error', () => undefined);
  try {
    await addJobs(queue, ctx.redis, jobs, kind);
  } finally {
    await queue.close();
  }
  return jobs.map((j) => j.opts.jobId);
}
