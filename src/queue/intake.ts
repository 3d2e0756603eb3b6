import { UnrecoverableError, type Job, type Queue } from 'bullmq';
import type { RedisConnection as Redis } from '../redis/connection.js';
import { indexJobIds } from './job-index.js';
import { QUOTE_CHARS } from '../records/unreadable-record.js';
import { recordFailureGroup } from './failure-group.js';
import type { JobData } from './queues.js';
import type { RecordJob } from './record-jobs.js';
import { withJobTraces } from '../telemetry/enqueue-spans.js';
import { batchLabel, intakeDataSchema, type IntakeData, type IntakeItem } from './intake-queue.js';
import { messageOf } from '../errors/message-of.js';
import { zodProblemText } from '../errors/zod-problems.js';

/**
 * Intake: how an NDJSON import reaches the record queues quickly.
 *
 * BullMQ's add costs about 0.1 ms of CPU a job (its Lua script in Redis, packing in Node), which caps an import
 * of one job per record at a few thousand records a second. So `import` writes validated, de-duplicated records
 * in batches, ONE intake job per batch, on the stream's intake queue (`{stream}-intake`); any worker process of
 * the stream then fans each batch out into the usual per-record jobs (same ids, same data) with one atomic
 * addBulk. A batch is expanded once and in order: the intake queues have a global concurrency of 1.
 *
 * Nothing is lost between the two: the batch is in Redis before `import` says it is queued, and it leaves the
 * intake queue only when its records' jobs exist. Expanding twice (a worker killed mid-way) is harmless: a job id
 * already in the queue is a no-op there, as for any re-delivery.
 */

/** What expanding a batch did. */
export interface IntakeResult {
  outcome: 'expanded';
  summary: string;
  records: number;
}

/** An item's record: its text parsed (as at import); a line that could not be read stays its text, with why. */
function itemData(item: IntakeItem, source: IntakeData['source']): JobData {
  if (item.parseError === undefined) {
    try {
      return { record: JSON.parse(item.text) as unknown, source };
    } catch (err) {
      // Only a batch written by something else than `import` gets here: the record fails alone, not the batch.
      return { record: item.text.slice(0, QUOTE_CHARS), source, parseError: `not valid JSON (${(err as Error).message})` };
    }
  }
  const data: JobData = { record: item.text, source, parseError: item.parseError };
  if (item.key !== undefined) data.key = item.key;
  return data;
}

/** The per-record jobs of a batch, exactly as a direct add would have made them. */
export function batchJobs(data: IntakeData): RecordJob[] {
  return data.items.map((item) => {
    const jobData = itemData(item, data.source);
    if (item.line !== undefined) jobData.line = item.line;
    if (item.upstreamId !== undefined) jobData.upstreamId = item.upstreamId;
    if (item.upstream !== undefined) jobData.upstream = item.upstream;
    return { name: data.stream, data: jobData, opts: { jobId: item.id } };
  });
}

/** Failure code of a batch that is not one (written by something else than `import`): retrying cannot help. */
export const BAD_BATCH = 'BAD_BATCH';

/**
 * Fans a batch out into its per-record jobs with one addBulk (a MULTI: all of the batch or none of it).
 * Ids already in the record queue are no-ops there, so expanding a batch again changes nothing. A job that is not a
 * batch of this stream fails at once (`[BAD_BATCH] ...`); a Redis failure is retried.
 */
export async function expandBatch(job: Job<IntakeData>, target: Queue<JobData>): Promise<IntakeResult> {
  const redis = (await target.backend.client) as unknown as Redis;
  const parsed = intakeDataSchema.safeParse(job.data);
  if (!parsed.success) {
    const why = zodProblemText(parsed.error.issues, { whole: '(data)', max: 1 }) || 'bad data';
    throw await batchFailure(redis, job, BAD_BATCH, `not a batch of records (${why})`);
  }
  const data = parsed.data;
  if (data.stream !== target.name) throw await batchFailure(redis, job, BAD_BATCH, `a batch of ${data.stream} on the ${target.name} queue`);
  const jobs = batchJobs(data);
  try {
    if (jobs.length) {
      // Indexed first, as `addJobs` does (src/ops/job-index.ts).
      await indexJobIds(
        redis,
        target.opts.prefix ?? 'bull',
        data.items.map((i) => i.id),
      );
      await target.addBulk(withJobTraces(target, jobs));
    }
  } catch (err) {
    // Redis failed (the batch is retried): say so in the job's reason, in the format operators group by.
    throw await batchFailure(redis, job, 'TRANSIENT', `could not queue the batch's records (${messageOf(err)})`);
  }
  return { outcome: 'expanded', summary: `${batchLabel(data)} queued as record jobs`, records: data.items.length };
}

/**
 * The error that fails a batch, `[CODE] intake job <id>: <reason>`, its group (the reason) recorded beside it first.
 * BAD_BATCH fails at once; anything else is retried. A group that cannot be written (Redis down) is left out.
 */
async function batchFailure(redis: Redis, job: Job, code: string, reason: string): Promise<Error> {
  // A damaged batch is removed and the file imported again (its hint): retrying it cannot help.
  const message = `[${code}] intake job ${job.id}: ${reason}`;
  await recordFailureGroup(redis, job, reason, code !== BAD_BATCH, message).catch(() => undefined);
  return code === BAD_BATCH ? new UnrecoverableError(message) : new Error(message);
}
