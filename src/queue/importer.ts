import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Readable } from 'node:stream';
import { readNdjson } from '../feed/ndjson.js';
import type { Logger } from '../logger.js';
import type { JobData } from './queues.js';
import { addJobs, badLineJob, recordJob, type RecordJob } from './record-jobs.js';
import type { StreamName } from './streams.js';

export interface ImportProgress {
  /** Lines read so far (blank ones included). */
  lines: number;
  records: number;
  queued: number;
  duplicates: number;
  /** Records that do not match their shape, plus lines that are not JSON. Queued to fail at once. */
  invalid: number;
}

export interface ImportResult extends ImportProgress {
  /** Lines that were not JSON at all (counted in invalid too). */
  malformed: number;
  ms: number;
}

export interface ImportNdjsonOptions {
  stream: StreamName;
  /** A file path, `-` for stdin, or a stream. */
  source: string | Readable;
  queue: Queue<JobData>;
  redis: Redis;
  logger: Logger;
  /** Jobs per addBulk. Default 1 000. */
  batchSize?: number;
  /** Batches being added at once; reading waits when this many are in flight (backpressure). Default 4. */
  maxInFlight?: number;
  onProgress?: (p: ImportProgress) => void;
  stdin?: Readable;
  signal?: AbortSignal;
}

/**
 * Queues the records of an NDJSON file in batches, streaming it in constant memory. Every line becomes
 * a job; a line that is not JSON or a record that does not match its shape fails at once when processed,
 * naming the record (or `line N`), the field and the reason.
 */
export async function importNdjson(o: ImportNdjsonOptions): Promise<ImportResult> {
  const started = Date.now();
  const batchSize = o.batchSize ?? 1_000;
  const totals: ImportResult = { lines: 0, records: 0, queued: 0, duplicates: 0, invalid: 0, malformed: 0, ms: 0 };
  let batch: RecordJob[] = [];
  // Batches are added one after another (so duplicate counts stay exact) while the next ones are read and
  // hashed; waiting once maxInFlight are pending keeps memory bounded.
  const pending: Array<Promise<void>> = [];
  const maxInFlight = o.maxInFlight ?? 4;
  let chain: Promise<void> = Promise.resolve();
  let failure: { error: unknown } | undefined;
  const flush = async () => {
    if (failure) throw failure.error;
    if (batch.length === 0) return;
    const jobs = batch;
    batch = [];
    const added = chain.then(async () => {
      const { queued, duplicates } = await addJobs(o.queue, o.redis, jobs);
      totals.queued += queued;
      totals.duplicates += duplicates;
      o.onProgress?.({ lines: totals.lines, records: totals.records, queued: totals.queued, duplicates: totals.duplicates, invalid: totals.invalid });
    });
    // Handled here so a failure is never an unhandled rejection; it is thrown by the next await of it.
    chain = added.catch((error: unknown) => void (failure ??= { error }));
    pending.push(added);
    if (pending.length >= maxInFlight) await pending.shift();
  };
  for await (const entry of readNdjson(o.source, { stdin: o.stdin })) {
    totals.lines = entry.line;
    totals.records++;
    if ('error' in entry) {
      totals.invalid++;
      totals.malformed++;
      o.logger.debug({ stream: o.stream, line: entry.line, error: entry.error }, 'malformed NDJSON line queued to fail at once');
      batch.push(badLineJob(o.stream, entry.line, entry.text, entry.error));
    } else {
      const { job, valid, problems } = recordJob(o.stream, entry.value, 'import', entry.line);
      if (!valid) {
        totals.invalid++;
        o.logger.debug({ stream: o.stream, line: entry.line, problems }, 'invalid record queued to fail at once');
      }
      batch.push(job);
    }
    if (batch.length >= batchSize) await flush();
    if (o.signal?.aborted) break;
  }
  await flush();
  await Promise.all(pending);
  totals.ms = Date.now() - started;
  if (totals.invalid > 0) {
    o.logger.warn(
      { stream: o.stream, invalid: totals.invalid, malformed: totals.malformed },
      'some lines are not valid records; their jobs fail at once (see `jobs list --state failed`); fix and import them again',
    );
  }
  return totals;
}
