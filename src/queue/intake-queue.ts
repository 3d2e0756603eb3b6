import { Queue, type DefaultJobOptions, type QueueOptions } from 'bullmq';
import type { RedisConnection as Redis } from '../redis/connection.js';
import { z } from 'zod';
import { defaults } from '../../config/defaults.js';
import type { Config } from '../../config/read-config.js';
import { JITTERED } from './backoff.js';
import { jobIdHash } from './job-id.js';
import type { StreamName } from '../records/stream-name.js';

/** The intake queues (`{stream}-intake`): their names, their batches' shape and ids, their job options (see intake.ts). */

export const INTAKE_SUFFIX = '-intake';

/** The intake queue of a stream. */
export function intakeQueueName(stream: StreamName): string {
  return `${stream}${INTAKE_SUFFIX}`;
}

/** The stream whose intake queue this is, if it is one. */
export function streamOfIntakeQueue(name: string): StreamName | undefined {
  return name.endsWith(INTAKE_SUFFIX) && name.length > INTAKE_SUFFIX.length ? name.slice(0, -INTAKE_SUFFIX.length) : undefined;
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
  /** A record a transform made or refused: the upstream payload's id and its text (as in JobData). */
  upstreamId: z.string().optional(),
  upstream: z.string().optional(),
});
export type IntakeItem = z.infer<typeof intakeItemSchema>;

/** Data of an intake job: a batch of one stream's records (never a secret: the records as delivered). */
export const intakeDataSchema = z.object({
  stream: z.string().min(1),
  source: z.literal('import'),
  /** First and last line of the file the batch holds records of (for operators). */
  firstLine: z.number().int().nonnegative(),
  lastLine: z.number().int().nonnegative(),
  items: z.array(intakeItemSchema),
});
export type IntakeData = z.infer<typeof intakeDataSchema>;

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

/** An intake queue of one stream under the prefix, with the intake job options (`reads`: opened for a read alone). */
export function openIntakeQueue(
  connection: Redis,
  prefix: string,
  stream: StreamName,
  jobs: Pick<Config['jobs'], 'attempts'>,
  reads: Pick<QueueOptions, 'skipMetasUpdate' | 'skipVersionCheck'> = {},
): Queue<IntakeData> {
  const q = new Queue<IntakeData>(intakeQueueName(stream), { connection, prefix, defaultJobOptions: intakeJobOptions(jobs), ...reads });
  // Unheard, BullMQ prints connection errors raw, past the logger; commands still reject on their own.
  q.on('error', () => undefined);
  return q;
}

/** The job id of a batch: its stream and a hash of its records' job ids, so the same batch queued twice is one job. */
export function intakeJobId(stream: StreamName, items: readonly Pick<IntakeItem, 'id'>[]): string {
  return `intake-${stream}-${jobIdHash(items.map((i) => i.id).join('\n'))}`;
}

/** What operators see for a batch: "batch of N records, lines A-B". */
export function batchLabel(data: Pick<IntakeData, 'items' | 'firstLine' | 'lastLine'>): string {
  const n = data.items.length;
  return `batch of ${n} record${n === 1 ? '' : 's'}, lines ${data.firstLine}-${data.lastLine}`;
}
