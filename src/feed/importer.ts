import { defaults } from '../../config/defaults.js';
import type { RedisConnection as Redis } from '../redis/connection.js';
import type { Readable } from 'node:stream';
import { readNdjsonChunks, type NdjsonEntry } from './ndjson.js';
import { keyInHead } from '../records/record-head.js';
import { HEAD_CHARS, QUOTE_CHARS } from '../records/unreadable-record.js';
import type { Logger } from '../logger.js';
import { keysExist } from '../redis/keys-exist.js';
import { intakeJobId, type IntakeData, type IntakeItem } from '../queue/intake-queue.js';
import type { QueueSet } from '../queue/queues.js';
import { badLineId, checkedRecord } from '../queue/record-jobs.js';
import type { StreamName } from '../records/stream-def.js';
import type { RecordStream } from '../records/records.js';

export interface ImportProgress {
  /** Lines read so far (blank ones included). */
  lines: number;
  records: number;
  queued: number;
  duplicates: number;
  /** Records that do not match their shape, plus lines that are not JSON. Queued to fail at once. */
  invalid: number;
  /** Intake batches written (each becomes its records' jobs when a worker takes it). */
  batches: number;
}

export interface ImportResult extends ImportProgress {
  /** Lines that could not be read: not JSON, not UTF-8, too long or nested too deep (counted in invalid too). */
  malformed: number;
  ms: number;
}

export interface ImportNdjsonOptions {
  /** The stream's definition (its name, key and record schema). */
  def: RecordStream;
  /** A file path, `-` for stdin, or a stream. */
  source: string | Readable;
  /** The stream's record queue (for re-delivery checks) and intake queue (where batches go). */
  queues: Pick<QueueSet, 'get' | 'intake'>;
  redis: Redis;
  logger: Logger;
  /** Records per intake batch. Default 1 000. */
  batchSize?: number;
  /** A batch is also closed once its records' text reaches this many characters, so big records make small batches. Default 4 MiB. */
  batchChars?: number;
  /** Batches being written at once; reading waits when this many are in flight (backpressure). Default 4. */
  maxInFlight?: number;
  /** Longest line in bytes (MAX_RECORD_BYTES); a longer one fails alone. Default defaults.maxRecordBytes. */
  maxLineBytes?: number;
  onProgress?: (p: ImportProgress) => void;
  stdin?: Readable;
  signal?: AbortSignal;
}

/**
 * Ids remembered across the batches of one import, so a record repeated in the file counts once. Past this many
 * the memory is let go (a repeat further apart is then counted as queued, and is still a no-op at the queue).
 */
const MAX_REMEMBERED_IDS = 500_000;

/**
 * Queues the records of an NDJSON file, streaming it in constant memory. Every line is checked and given its job id
 * here; the new ones are written as intake batches (see intake.ts) that workers fan out into one job per record. A
 * line that cannot be read (not JSON, not UTF-8, too long, nested too deep) or a record that does not match its
 * shape becomes a job that fails at once when processed, naming the record (or `line N`), the field and the reason. A
 * record whose job exists already (an earlier import or the feed) is counted as a duplicate and left out.
 */
export async function importNdjson(o: ImportNdjsonOptions): Promise<ImportResult> {
  const started = Date.now();
  const batchSize = o.batchSize ?? defaults.importBatchRecords;
  const batchChars = o.batchChars ?? defaults.importBatchChars;
  let chars = 0;
  const totals: ImportResult = { lines: 0, records: 0, queued: 0, duplicates: 0, invalid: 0, batches: 0, malformed: 0, ms: 0 };
  const recordQueue = o.queues.get(o.def.stream);
  const intake = o.queues.intake(o.def.stream);
  const seen = new Set<string>();
  let batch: IntakeItem[] = [];

  /** Leaves out repeats and records whose job exists, then writes the rest as one intake job. */
  const write = async (items: IntakeItem[]) => {
    const fresh: IntakeItem[] = [];
    for (const item of items) {
      if (seen.has(item.id)) continue;
      seen.add(item.id);
      fresh.push(item);
    }
    if (seen.size > MAX_REMEMBERED_IDS) seen.clear();
    const exists = await keysExist(
      o.redis,
      fresh.map((i) => recordQueue.toKey(i.id)),
    );
    const todo = fresh.filter((_, i) => !exists[i]);
    let queued = todo.length;
    if (todo.length) {
      const jobId = intakeJobId(o.def.stream, todo);
      // The same batch written before and not yet expanded: its records are queued already. If it failed (Redis
      // failed it on every attempt), importing again puts it back to work.
      const [already] = await keysExist(o.redis, [intake.toKey(jobId)]);
      if (already) {
        const state = await intake.getJobState(jobId);
        if (state === 'failed')
          await (await intake.getJob(jobId))?.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
        else queued = 0;
      } else {
        const data: IntakeData = {
          stream: o.def.stream,
          source: 'import',
          firstLine: todo[0]!.line ?? 0,
          lastLine: todo.at(-1)!.line ?? 0,
          items: todo,
        };
        await intake.add(o.def.stream, data, { jobId });
        totals.batches++;
      }
    }
    totals.queued += queued;
    totals.duplicates += items.length - queued;
    o.onProgress?.({
      lines: totals.lines,
      records: totals.records,
      queued: totals.queued,
      duplicates: totals.duplicates,
      invalid: totals.invalid,
      batches: totals.batches,
    });
  };

  // Batches are written one after another (so duplicate counts stay exact) while the next ones are read and
  // checked; waiting once maxInFlight are pending keeps memory bounded.
  const pending: Array<Promise<void>> = [];
  const maxInFlight = o.maxInFlight ?? 4;
  let chain: Promise<void> = Promise.resolve();
  let failure: { error: unknown } | undefined;
  const flush = async () => {
    if (failure) throw failure.error;
    if (batch.length === 0) return;
    const items = batch;
    batch = [];
    chars = 0;
    const written = chain.then(() => write(items));
    // Handled here so a failure is never an unhandled rejection; it is thrown by the next await of it.
    chain = written.catch((error: unknown) => void (failure ??= { error }));
    pending.push(written);
    if (pending.length >= maxInFlight) await pending.shift();
  };
  /** A line that cannot be read or checked: an item that fails at once, named by its line (and key, when found). */
  const unreadable = (line: number, head: string, why: string) => {
    totals.invalid++;
    totals.malformed++;
    o.logger.debug({ stream: o.def.stream, line, error: why }, 'unreadable NDJSON line queued to fail at once');
    const text = head.slice(0, QUOTE_CHARS);
    const key = keyInHead(o.def, head);
    batch.push({ id: badLineId(o.def.stream, line, text), line, text, parseError: why, ...(key === undefined ? {} : { key }) });
  };
  const take = (entry: NdjsonEntry) => {
    totals.lines = entry.line;
    totals.records++;
    if ('error' in entry) return unreadable(entry.line, entry.head, entry.error);
    let checked: ReturnType<typeof checkedRecord>;
    try {
      checked = checkedRecord(o.def, entry.value);
    } catch (err) {
      // Nested too deep (or anything else about this one record): it fails alone, the import goes on.
      const code = (err as { code?: unknown }).code;
      return unreadable(
        entry.line,
        entry.text.slice(0, HEAD_CHARS),
        code === 'RECORD_TOO_DEEP' ? (err as Error).message : `could not be checked (${(err as Error).message})`,
      );
    }
    if (!checked.valid) {
      totals.invalid++;
      o.logger.debug({ stream: o.def.stream, line: entry.line, problems: checked.problems }, 'invalid record queued to fail at once');
    }
    batch.push({ id: checked.id, line: entry.line, text: entry.text });
  };
  for await (const entries of readNdjsonChunks(o.source, { stdin: o.stdin, maxLineBytes: o.maxLineBytes })) {
    for (const entry of entries) {
      take(entry);
      chars += entry.text.length;
      if (batch.length >= batchSize || chars >= batchChars) await flush();
    }
    if (o.signal?.aborted) break;
  }
  await flush();
  await Promise.all(pending);
  totals.ms = Date.now() - started;
  if (totals.invalid > 0) {
    o.logger.warn(
      { stream: o.def.stream, invalid: totals.invalid, malformed: totals.malformed },
      'some lines are not valid records; their jobs fail at once (see `jobs list --state failed`); fix and import them again',
    );
  }
  return totals;
}
