import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import { defaults } from '../../config/defaults.js';
import type { RedisConnection as Redis } from '../redis/connection.js';
import { readNdjsonChunks, type NdjsonEntry } from './ndjson.js';
import { keyInHead } from '../records/record-head.js';
import { HEAD_CHARS, QUOTE_CHARS } from '../records/unreadable-record.js';
import type { Logger } from '../log/logger.js';
import type { IntakeItem } from '../queue/intake-queue.js';
import type { QueueSet } from '../queue/queues.js';
import { badLineId, checkedRecord } from '../queue/record-jobs.js';
import { problemItem, upstreamFields } from '../queue/transformed-jobs.js';
import type { StreamName } from '../records/stream-name.js';
import type { CsvLayout } from '../records/csv-layout.js';
import type { CheckedKind } from '../records/record-kind.js';
import { CsvHeaderError, readCsvRecords } from './csv-records.js';
import { IntakeWriter, type ImportProgress } from './intake-writer.js';
import { transformPayload, type Transform } from './transform.js';

export type { ImportProgress } from './intake-writer.js';

export interface ImportResult extends ImportProgress {
  /** Lines that could not be read: not JSON, not UTF-8, too long or nested too deep (counted in invalid too). */
  malformed: number;
  ms: number;
}

export interface ImportNdjsonOptions {
  /** The stream's kind (its name, key and record schema; its CSV layout, for a CSV file). */
  kind: CheckedKind & { record: { csv?: CsvLayout } };
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
  /** NDJSON (default) or CSV with a header row (src/feed/csv-records.ts). */
  format?: ImportFormat;
  /** The stream's transform: each line (or CSV row) is an upstream payload it turns into records. None: records as they are. */
  transform?: Transform;
  /** How upstream ids name the file (`{name}:{line}`). Default: the file's name, `stdin` for a stream. */
  upstreamName?: string;
  /** Told the job id of every record read and of every batch written (IntakeWriter's hooks): a run's ledger. */
  onRecords?: (ids: readonly string[]) => void;
  onBatch?: (batchId: string) => void;
}

/** The formats `import` reads. */
export type ImportFormat = 'ndjson' | 'csv';

/** How a file is read: its format (default NDJSON) and the stream's transform (default none). */
export type ReadAs = Pick<ImportNdjsonOptions, 'format' | 'transform'>;

/**
 * Queues the records of an NDJSON or CSV file, streaming it in constant memory. Every record is checked and given its
 * job id here; the new ones are written as intake batches (see intake.ts) that workers fan out into one job per
 * record. A line that cannot be read (not JSON, not UTF-8, too long, nested too deep, a CSV row or record that
 * cannot be made) or a record that does not match its shape becomes a job that fails at once when processed, naming
 * the record (or `line N`), the field and the reason. With a transform, each line (or CSV row) is an upstream payload
 * that it turns into records; one it refuses fails the same way, naming `{file}:{line}`. A record whose job exists
 * already (an earlier import or the feed) is counted as a duplicate and left out.
 */
export async function importNdjson(o: ImportNdjsonOptions): Promise<ImportResult> {
  const started = Date.now();
  const totals: ImportResult = { lines: 0, records: 0, queued: 0, duplicates: 0, repeated: 0, invalid: 0, batches: 0, malformed: 0, ms: 0 };
  const writer = new IntakeWriter({
    stream: o.kind.stream,
    recordQueue: o.queues.get(o.kind.stream),
    intake: o.queues.intake(o.kind.stream),
    redis: o.redis,
    batchSize: o.batchSize ?? defaults.importBatchRecords,
    batchChars: o.batchChars ?? defaults.importBatchChars,
    maxInFlight: o.maxInFlight ?? 4,
    totals,
    onProgress: o.onProgress,
    onRecords: o.onRecords,
    onBatch: o.onBatch,
  });
  const step = entrySteps(o, totals);
  for await (const entries of sourceEntries(o)) {
    for (const entry of entries) {
      totals.lines = entry.line;
      const items = o.transform && 'value' in entry ? await step.transformed(entry, o.transform) : [step.take(entry)];
      // The upstream payload kept beside a record counts towards its batch's size too.
      for (const item of items) await writer.add(item, item.text.length + (item.upstream?.length ?? 0));
    }
    if (o.signal?.aborted) break;
  }
  await writer.close();
  totals.ms = Date.now() - started;
  // The command's own output says so too (how many, and where to see them): a record of it for LOG_FILE.
  if (totals.invalid > 0) {
    o.logger.info(
      { stream: o.kind.stream, invalid: totals.invalid, malformed: totals.malformed },
      'some lines are not valid records; their jobs fail at once (see `jobs list --state failed`); fix and import them again',
    );
  }
  return totals;
}

/** The file's entries: NDJSON lines, or CSV rows gathered into records by the kind's layout (or as rows, for a transform). */
function sourceEntries(o: ImportNdjsonOptions): AsyncGenerator<NdjsonEntry[]> {
  if (o.format !== 'csv') return readNdjsonChunks(o.source, { stdin: o.stdin, maxLineBytes: o.maxLineBytes });
  const layout = o.kind.record.csv;
  if (!o.transform && !layout) throw new CsvHeaderError(noCsvLayout(o.kind.stream));
  const mode = o.transform || !layout ? { rows: true as const } : { layout, keyField: o.kind.record.keyField };
  return readCsvRecords(o.source, mode, { stdin: o.stdin, maxRecordChars: o.maxLineBytes });
}

/** Why a stream takes no CSV: its kind declares no layout and no transform is set. */
export function noCsvLayout(stream: StreamName): string {
  return (
    `${stream} has no CSV layout: import its records as NDJSON, ` +
    'or set a transform for the stream (TRANSFORMS, or --transform) that reads the rows'
  );
}

/** How each entry of the file becomes the items of an intake batch, counting as it goes. */
function entrySteps(o: ImportNdjsonOptions, totals: ImportResult) {
  const upstreamName = o.upstreamName ?? (typeof o.source === 'string' && o.source !== '-' ? basename(o.source) : 'stdin');
  /** A line that cannot be read or checked: an item that fails at once, named by its line (and key, when found). */
  const unreadable = (line: number, head: string, why: string, known?: string): IntakeItem => {
    totals.invalid++;
    totals.malformed++;
    o.logger.debug({ stream: o.kind.stream, line, error: why }, 'unreadable line queued to fail at once');
    const text = head.slice(0, QUOTE_CHARS);
    const key = known ?? keyInHead(o.kind, head);
    return { id: badLineId(o.kind.stream, line, text, key), line, text, parseError: why, ...(key === undefined ? {} : { key }) };
  };
  /** A record: its job id, checked; an invalid one still queued, to fail at once. */
  const record = (line: number, value: unknown, text: string): IntakeItem => {
    let checked: ReturnType<typeof checkedRecord>;
    try {
      checked = checkedRecord(o.kind, value);
    } catch (err) {
      // Nested too deep (or anything else about this one record): it fails alone, the import goes on.
      const code = (err as { code?: unknown }).code;
      const why = code === 'RECORD_TOO_DEEP' ? (err as Error).message : `could not be checked (${(err as Error).message})`;
      return unreadable(line, text.slice(0, HEAD_CHARS), why);
    }
    if (!checked.valid) {
      totals.invalid++;
      o.logger.debug({ stream: o.kind.stream, line, problems: checked.problems }, 'invalid record queued to fail at once');
    }
    return { id: checked.id, line, text };
  };
  return {
    take(entry: NdjsonEntry): IntakeItem {
      totals.records++;
      if ('error' in entry) return unreadable(entry.line, entry.head, entry.error, entry.key);
      return record(entry.line, entry.value, entry.text);
    },
    /** An upstream payload through the transform: the records it makes (with the payload), or the problem. */
    async transformed(entry: Extract<NdjsonEntry, { value: unknown }>, transform: Transform): Promise<IntakeItem[]> {
      const made = await transformPayload(transform, entry.value, `${upstreamName}:${entry.line}`);
      return made.map((e) => {
        totals.records++;
        if ('problem' in e) {
          totals.invalid++;
          return problemItem(o.kind.stream, e, entry.line);
        }
        const text = JSON.stringify(e.record) ?? '';
        return { ...record(entry.line, e.record, text), ...upstreamFields(e) };
      });
    },
  };
}
