import { Queue, UnrecoverableError, type DefaultJobOptions, type Job } from 'bullmq';
import type { RedisConnection as Redis } from '../redis.js';
import { z } from 'zod';
import { defaults } from '../../config/defaults.js';
import type { Config } from '../../config/read-config.js';
import { indexJobIds } from './job-index.js';
import { QUOTE_CHARS } from './unreadable-record.js';
import { JITTERED } from './backoff.js';
import { recordHash } from './job-id.js';
import { recordFailureGroup } from './failure-group.js';
import type { JobData } from './queues.js';
import type { RecordJob } from './record-jobs.js';
import { withJobTraces } from '../telemetry/enqueue-spans.js';
import { STREAMS, type StreamName } from '../../jobs/streams.js';
import { messageOf } from '../message-of.js';

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

export const INTAKE_SUFFIX = '-intake';

/** The intake queue of a stream. */
export function intakeQueueName(stream: StreamName): string {
  return `${stream}${INTAKE_SUFFIX}`;
}

/** The stream whose intake queue this is, if it is one. */
export function streamOfIntakeQueue(name: string): StreamName | undefined {
  return STREAMS.find((s) => intakeQueueName(s) === name);
}

/**
 * A record of a batch: its job id (computed once, at import), its line and its text as it was in the file. The text
 * is kept rather than the parsed record because writing it costs next to nothing; the worker parses it again.
 * A line that was not JSON keeps why (`parseError`) and the start of its text.
 */
export const intakeItemSchema = z.object({
  id: z.string().min(1),
  line: z.number().int().positive().optional(),
  text: z.string(),
  parseError: z.string().optional(),
  /** The business key found at the start of a line that could not be read. */
  key: z.string().optional(),
});
export type IntakeItem = z.infer<typeof intakeItemSchema>;

/** Data of an intake job: a batch of one stream's records (never a secret: the records as delivered). */
export const intakeDataSchema = z.object({
  stream: z.enum(STREAMS),
  source: z.literal('import'),
  /** First and last line of the file the batch holds records of (for operators). */
  firstLine: z.number().int().nonnegative(),
  lastLine: z.number().int().nonnegative(),
  items: z.array(intakeItemSchema),
});
export type IntakeData = z.infer<typeof intakeDataSchema>;

/** What expanding a batch did. */
export interface IntakeResult {
  outcome: 'expanded';
  summary: string;
  records: number;
}

/**
 * Intake jobs retry on their own (only Redis can fail them, as `[TRANSIENT] ...`) and leave once expanded: their
 * records are the jobs then.
 */
export function intakeJobOptions(jobs: Pick<Config['jobs'], 'attempts'>): DefaultJobOptions {
  return {
    attempts: Math.max(jobs.attempts, 10),
    backoff: { type: JITTERED },
    removeOnComplete: true,
    removeOnFail: false,
    stackTraceLimit: defaults.jobKeepStackTraces,
  };
}

/** An intake queue of one stream under the prefix, with the intake job options. */
export function openIntakeQueue(connection: Redis, prefix: string, stream: StreamName, jobs: Pick<Config['jobs'], 'attempts'>): Queue<IntakeData> {
  const q = new Queue<IntakeData>(intakeQueueName(stream), { connection, prefix, defaultJobOptions: intakeJobOptions(jobs) });
  // Unheard, BullMQ prints connection errors raw, past the logger; commands still reject on their own.
  q.on('error', () => undefined);
  return q;
}

/** The job id of a batch: its stream and a hash of its records' job ids, so the same batch queued twice is one job. */
export function intakeJobId(stream: StreamName, items: readonly Pick<IntakeItem, 'id'>[]): string {
  return `intake-${stream}-${recordHash(items.map((i) => i.id).join('\n'))}`;
}

/** What operators see for a batch: "batch of N records, lines A-B". */
export function batchLabel(data: Pick<IntakeData, 'items' | 'firstLine' | 'lastLine'>): string {
  const n = data.items.length;
  return `batch of ${n} record${n === 1 ? '' : 's'}, lines ${data.firstLine}-${data.lastLine}`;
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
    const issue = parsed.error.issues[0];
    const why = issue ? `${issue.path.map(String).join('.') || '(data)'}: ${issue.message}` : 'bad data';
    throw await batchFailure(redis, job, BAD_BATCH, `not a batch of records (${why})`);
  }
  const data = parsed.data;
  if (data.stream !== target.name) throw await batchFailure(redis, job, BAD_BATCH, `a batch of ${data.stream} on the ${target.name} queue`);
  const jobs = batchJobs(data);
  try {
    if (jobs.length) {
      // Indexed first, as `addJobs` does (src/ops/job-index.ts).
      await indexJobIds(redis, target.opts.prefix ?? 'bull', data.items.map((i) => i.id));
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
  await recordFailureGroup(redis, job, reason).catch(() => undefined);
  const message = `[${code}] intake job ${job.id}: ${reason}`;
  return code === BAD_BATCH ? new UnrecoverableError(message) : new Error(message);
}

/**
 * Which of these job keys exist, one Redis round trip for all (a Lua loop of EXISTS). All keys of one queue share
 * its prefix, hence one Redis Cluster slot when the prefix has a hash tag.
 */
export async function keysExist(redis: Redis, keys: readonly string[]): Promise<boolean[]> {
  if (keys.length === 0) return [];
  const r = (await redis.eval(EXISTS_EACH, keys.length, ...keys)) as number[];
  return r.map((x) => x === 1);
}

const EXISTS_EACH = `local r = {}
for i, k in ipairs(KEYS) do r[i] = redis.call('EXISTS', k) end
return r`;
