import { Queue, type DefaultJobOptions, type Telemetry } from 'bullmq';
import type { RedisConnection as Redis } from '../redis/connection.js';
import { z } from 'zod';
import { defaults } from '../../config/defaults.js';
import type { Config } from '../../config/read-config.js';
import { JITTERED } from './backoff.js';
import { openIntakeQueue, type IntakeData } from './intake-queue.js';
import type { StreamName } from '../records/stream-name.js';
import { announceWork } from './dispatch/work-mark.js';

/** Name of the queue whose jobs are the scheduled pulls (order and BOM polling, the stock-count cron). */
export const CONTROL_QUEUE = 'control';

/** Completed jobs are kept this long (seconds) so re-deliveries stay no-ops; then BullMQ trims them. */
export const KEEP_COMPLETED_SECONDS = 7 * 24 * 3600;
/** At most this many completed jobs are kept per queue, so Redis does not grow without bound. */
export const KEEP_COMPLETED_COUNT = 50_000;

/** What a resync or repair job asks of its kind beside the record (docs/investigating.md, "Resync a record", "Repair"). */
export const fromServiceSchema = z.object({
  reason: z.enum(['resync', 'repair']),
  /** The repair run it belongs to (its id), for the report. */
  run: z.string().optional(),
  /** The drifts it repairs, as reconcile named them (`kind field`). */
  drifts: z.array(z.string()).optional(),
  /** What the kind needs beyond the record (e.g. the stock on hand to set), checked by the kind. */
  targets: z.unknown().optional(),
});
export type FromService = z.infer<typeof fromServiceSchema>;

/** Job data (contract 3): the raw record as delivered, never a secret. */
export const jobDataSchema = z.object({
  record: z.unknown(),
  /**
   * Where the job came from: the feed, an import, a push (src/ingest/), an operator's `resync` or `reconcile --repair`,
   * or another job of its stream that split it off its record (a count's row: src/queue/split-records.ts).
   */
  source: z.enum(['feed', 'import', 'push', 'resync', 'repair', 'split']),
  /** Line of the NDJSON file the record came from (imports only). */
  line: z.number().int().positive().optional(),
  /**
   * Set when the record could not be read (not JSON, not UTF-8, too large, nested too deep): why; `record` then
   * holds the start of its text.
   */
  parseError: z.string().optional(),
  /** The business key of such a record, when its start names it (for a payload a transform refused: its upstream id). */
  key: z.string().optional(),
  /** Set on a record a transform made or refused (TRANSFORMS): the upstream payload's id (a webhook id, or `file:line`). */
  upstreamId: z.string().optional(),
  /** That upstream payload as JSON text, at most HEAD_CHARS characters (longer ones cut): shown beside the record. */
  upstream: z.string().optional(),
  /** Set on a resync or a repair: the job plans from the service's state, not from the progress kept (job-context.ts). */
  fromService: fromServiceSchema.optional(),
});
export type JobData = z.infer<typeof jobDataSchema>;

/** Options every record job gets: retries with the jittered backoff, completed jobs trimmed, failed kept. */
export function recordJobOptions(jobs: Pick<Config['jobs'], 'attempts'>): DefaultJobOptions {
  return {
    attempts: jobs.attempts,
    backoff: { type: JITTERED },
    removeOnComplete: { age: KEEP_COMPLETED_SECONDS, count: KEEP_COMPLETED_COUNT },
    // Failed jobs are what operators act on: kept (bad-record ones within BAD_RECORDS_KEEP: bad-record-retention.ts).
    removeOnFail: false,
    // One log line per attempt: a job retried for weeks keeps its latest traces only.
    keepLogs: defaults.jobKeepLogs,
    // BullMQ keeps every attempt's stack otherwise: 12 attempts, and again after each operator retry.
    stackTraceLimit: defaults.jobKeepStackTraces,
  };
}

export interface QueueSet {
  prefix: string;
  get(stream: StreamName): Queue<JobData>;
  /** The stream's intake queue: batches of imported records waiting to become record jobs. */
  intake(stream: StreamName): Queue<IntakeData>;
  streams(): StreamName[];
  close(): Promise<void>;
}

export interface CreateQueuesOptions {
  /** A shared connection; closing the queues leaves it open. */
  connection: Redis;
  prefix: string;
  jobs: Pick<Config['jobs'], 'attempts'>;
  /** The streams to open a queue for: those of the list of kinds. */
  streams: readonly StreamName[];
  /** BullMQ telemetry (tracing on): each job added gets a trace of its own (src/telemetry/enqueue-spans.ts). */
  telemetry?: Telemetry;
  /** The account's mark in the deployment's ready set (dispatch/work-mark.ts's workMarkOf): every add makes it. */
  mark?: () => void;
  /** Queues opened for a read alone (a closed account's figures): their opening writes nothing and checks no version. */
  readsOnly?: boolean;
}

/**
 * One BullMQ queue per stream, named after it, under the program's prefix, and its intake queue; each opened when first
 * asked for (an account that only polls an empty feed opens none: issue 56, an idle account's memory).
 */
export function createQueues(opts: CreateQueuesOptions): QueueSet {
  const streams = [...opts.streams];
  const defaultJobOptions = recordJobOptions(opts.jobs);
  const reads = opts.readsOnly ? { skipMetasUpdate: true, skipVersionCheck: true } : {};
  const opened = new Map<StreamName, Queue<JobData>>();
  const intakes = new Map<StreamName, Queue<IntakeData>>();
  const known = (stream: StreamName, what: string) => {
    if (!streams.includes(stream)) throw new Error(`no ${what} opened for stream ${stream}`);
  };
  return {
    prefix: opts.prefix,
    get(stream) {
      known(stream, 'queue');
      let q = opened.get(stream);
      if (!q) {
        q = new Queue<JobData>(stream, {
          connection: opts.connection,
          prefix: opts.prefix,
          defaultJobOptions,
          telemetry: opts.telemetry,
          ...reads,
        });
        // Without a listener BullMQ prints every connection error as a raw stack, past the logger and its redaction;
        // commands still reject on their own, and the workers log the outage.
        q.on('error', () => undefined);
        opened.set(stream, announceWork(q, opts.mark));
      }
      return q;
    },
    intake(stream) {
      known(stream, 'intake queue');
      let q = intakes.get(stream);
      if (!q) intakes.set(stream, (q = announceWork(openIntakeQueue(opts.connection, opts.prefix, stream, opts.jobs, reads), opts.mark)));
      return q;
    },
    streams: () => [...streams],
    async close() {
      await Promise.all([...opened.values(), ...intakes.values()].map((q) => q.close()));
    },
  };
}
