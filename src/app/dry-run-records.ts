import type { Readable } from 'node:stream';
import type { FeedPage, FetchPageOptions } from '../feed/upstream-client.js';
import { readNdjsonChunks } from '../feed/ndjson.js';
import { peekStream } from '../feed/peek-stream.js';
import { keyInHead } from '../records/record-head.js';
import { badLineId, checkedRecord, recordJob, type RecordJob } from '../queue/record-jobs.js';
import { HEAD_CHARS, QUOTE_CHARS } from '../records/unreadable-record.js';
import type { RedisConnection as Redis, RedisKeys } from '../redis/connection.js';
import type { CheckedKind } from '../records/record-kind.js';
import type { StreamName } from '../records/stream-name.js';
import type { CsvLayout } from '../records/csv-layout.js';
import { basename } from 'node:path';
import { readCsvRecords } from '../feed/csv-records.js';
import type { ReadAs } from '../feed/importer.js';
import type { NdjsonEntry } from '../feed/ndjson.js';
import { transformPayload } from '../feed/transform.js';
import { transformedJob } from '../queue/transformed-jobs.js';
import type { QueueSet } from '../queue/queues.js';
import { queuedJobs } from './queued-jobs.js';

/** What reading a file needs of its stream: its records' shape, and its CSV layout for a CSV file. */
type FileStream = CheckedKind & { record: { csv?: CsvLayout } };

/**
 * Where a dry run reads a stream's records, each as its real run reads them: the feed from the stream's stored cursor,
 * an NDJSON or CSV file, the store's orders since a day (a backfill), or the jobs already queued (the push backlog).
 */
export type DryRunSource =
  | { stream: StreamName; from: 'feed' }
  | ({ stream: StreamName; from: 'file'; file: string | Readable } & ReadAs)
  /** Jobs made by the program itself (a resync's or a repair's), previewed as they would run. */
  | { stream: StreamName; from: 'jobs'; jobs: RecordJob[] }
  /** The store's orders updated since that day (YYYY-MM-DD), as `import <stream> --from shopify --since` reads them. */
  | { stream: StreamName; from: 'store'; since: string }
  /** The jobs and import batches waiting in the stream's queues, as a run's workers would take them. */
  | { stream: StreamName; from: 'queue' };

/** What was read of one source. */
export interface SourceRead {
  stream: StreamName;
  from: DryRunSource['from'];
  /** The stored cursor the feed was read after (null: the stream's start). Left where it was. */
  cursor?: string | null;
  /** The day the store was read from: --since, or the go-live floor when it is later. */
  since?: string;
  pages?: number;
  /** The file, when it is one (`-` for stdin). */
  file?: string;
  records: number;
}

export interface SourceDeps {
  upstream?: { fetchPage(stream: StreamName, o: FetchPageOptions): Promise<FeedPage> };
  /** The store of a backfill (src/app/store-backfill.ts readStore): the day it reads from, and its pages. */
  store?: (since: string) => { from: string; pages: AsyncIterable<{ items: unknown[] }> };
  /** The queues the backlog is read from (read only). */
  queues?: QueueSet;
  redis: Redis;
  keys: RedisKeys;
  pageSize: number;
  maxRecordBytes: number;
  stdin?: Readable;
  signal?: AbortSignal;
}

/** A line (or CSV record) that cannot be read or checked, as the job `import` would queue for it (fails at once). */
function unreadableLine(kind: CheckedKind, line: number, head: string, why: string, known?: string): RecordJob {
  const stream = kind.stream;
  const text = head.slice(0, QUOTE_CHARS);
  const key = known ?? keyInHead(kind, head);
  return {
    name: stream,
    data: { record: text, source: 'import', parseError: why, line, ...(key === undefined ? {} : { key }) },
    opts: { jobId: badLineId(stream, line, text, key) },
  };
}

/** The file's entries, as `import` reads them: NDJSON lines, or CSV records (rows, for a transform). */
function fileEntries(kind: FileStream, source: Extract<DryRunSource, { from: 'file' }>, d: SourceDeps): AsyncGenerator<NdjsonEntry[]> {
  if (source.format !== 'csv') return readNdjsonChunks(source.file, { stdin: d.stdin, maxLineBytes: d.maxRecordBytes });
  const layout = kind.record.csv;
  const mode = source.transform || !layout ? { rows: true as const } : { layout, keyField: kind.record.keyField };
  return readCsvRecords(source.file, mode, { stdin: d.stdin, maxRecordChars: d.maxRecordBytes });
}

async function* fileJobs(
  kind: FileStream,
  source: Extract<DryRunSource, { from: 'file' }>,
  d: SourceDeps,
  read: SourceRead,
): AsyncGenerator<RecordJob> {
  const file = source.file;
  const upstreamName = typeof file === 'string' && file !== '-' ? basename(file) : 'stdin';
  for await (const entries of fileEntries(kind, source, d)) {
    for (const entry of entries) {
      read.records++;
      if ('error' in entry) {
        yield unreadableLine(kind, entry.line, entry.head, entry.error, entry.key);
        continue;
      }
      if (source.transform) {
        for (const e of await transformPayload(source.transform, entry.value, `${upstreamName}:${entry.line}`))
          yield transformedJob(kind, e, 'import', entry.line).job;
        continue;
      }
      let id: string;
      try {
        id = checkedRecord(kind, entry.value).id;
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        yield unreadableLine(
          kind,
          entry.line,
          entry.text.slice(0, HEAD_CHARS),
          code === 'RECORD_TOO_DEEP' ? (err as Error).message : `could not be checked (${(err as Error).message})`,
        );
        continue;
      }
      yield { name: kind.stream, data: { record: entry.value, source: 'import', line: entry.line }, opts: { jobId: id } };
    }
    if (d.signal?.aborted) return;
  }
}

/** The records of pages as the jobs a pull (or a backfill) would queue for them; `read` counts pages and records. */
async function* pageJobs(kind: CheckedKind, pages: AsyncIterable<{ items: unknown[] }>, read: SourceRead): AsyncGenerator<RecordJob> {
  read.pages = 0;
  for await (const { items } of pages) {
    read.pages++;
    for (const raw of items) {
      read.records++;
      yield recordJob(kind, raw, 'feed').job;
    }
  }
}

async function* feedJobs(kind: CheckedKind, d: SourceDeps, read: SourceRead): AsyncGenerator<RecordJob> {
  const stream = kind.stream;
  if (!d.upstream) throw new Error('UPSTREAM_URL: is required to pull the feed');
  read.cursor = (await d.redis.get(d.keys.cursor(stream))) ?? null;
  const pages = peekStream({ stream, upstream: d.upstream, redis: d.redis, keys: d.keys, pageSize: d.pageSize, signal: d.signal });
  yield* pageJobs(kind, pages, read);
}

function storeJobs(kind: CheckedKind, since: string, d: SourceDeps, read: SourceRead): AsyncGenerator<RecordJob> {
  if (!d.store) throw new Error('SHOPIFY_STORE_URL: is required to import from the store');
  const store = d.store(since);
  read.since = store.from;
  return pageJobs(kind, store.pages, read);
}

async function* listedJobs(jobs: AsyncIterable<RecordJob> | RecordJob[], read: SourceRead): AsyncGenerator<RecordJob> {
  for await (const job of jobs) {
    read.records++;
    yield job;
  }
}

/**
 * The records of a source as the jobs the real run would queue for them (same ids, same data; a record that cannot
 * be read is a job that fails at once), in source order. `read` is filled in as they come.
 */
export function sourceJobs(kind: FileStream, source: DryRunSource, d: SourceDeps, read: SourceRead): AsyncGenerator<RecordJob> {
  if (source.from === 'feed') return feedJobs(kind, d, read);
  if (source.from === 'jobs') return listedJobs(source.jobs, read);
  if (source.from === 'store') return storeJobs(kind, source.since, d, read);
  if (source.from === 'queue') {
    if (!d.queues) throw new Error('the queued jobs of a dry run need its queues');
    return listedJobs(queuedJobs(d.queues, source.stream), read);
  }
  return fileJobs(kind, source, d, read);
}
