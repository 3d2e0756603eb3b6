import type { Readable } from 'node:stream';
import { isServiceError } from '../client/answers/errors.js';
import { readOnlyApi } from '../client/layers/read-only-api.js';
import type { ApiCall } from '../client/service-api.js';
import type { FeedPage, FetchPageOptions } from '../feed/upstream-client.js';
import { MissingReferenceError, PermanentJobError } from '../queue/job-errors.js';
import { refWords } from '../queue/wait/reference.js';
import { checkedJobRecord } from '../queue/checked-record.js';
import type { PreviewResult, RecordPlan } from '../queue/record-plan.js';
import type { PreviewContext, RunnerDeps } from '../queue/job-context.js';
import { recordLabel, type RecordJob } from '../queue/record-jobs.js';
import { tracedClient } from '../queue/traced-client.js';
import type { StreamName } from '../records/stream-name.js';
import { sourceJobs, type DryRunSource, type SourceDeps, type SourceRead } from './dry-run-records.js';
import type { QueueSet } from '../queue/queues.js';
import { summarizePlans, type DryRunSummary } from './dry-run-summary.js';
import { readOnlyRedis } from './read-only-redis.js';
import type { Kind } from '../kinds/kind.js';

export type { DryRunSource, SourceRead } from './dry-run-records.js';

/** What the dry run reads with. The client and Redis are wrapped so that no write can leave. */
export interface DryRunDeps extends Pick<RunnerDeps, 'client' | 'catalog' | 'redis' | 'keys' | 'logger' | 'jobs'> {
  upstream?: { fetchPage(stream: StreamName, o: FetchPageOptions): Promise<FeedPage> };
  /** The store a backfill reads (a `store` source). */
  store?: SourceDeps['store'];
  /** The queues the backlog is read from (a `queue` source); read only. */
  queues?: QueueSet;
  /** Longest NDJSON line, as `import` takes it. */
  maxRecordBytes: number;
}

export interface DryRunOptions {
  /** The kinds of job, one per stream (jobs/registry.ts); each previews its records. */
  kinds: Kind[];
  /** What to read, in order. */
  sources: DryRunSource[];
  /**
   * Why a checked record would end `skipped` before its job does anything (e.g. "before go-live"), or undefined.
   * Such a record is planned as skipped with that reason, without a preview.
   */
  skipReason?: (stream: StreamName, record: unknown) => string | undefined;
  /** The state of the job already under this id, if any: the real run then adds nothing for the record. */
  existingJob?: (stream: StreamName, jobId: string) => Promise<string | undefined>;
  stdin?: Readable;
  signal?: AbortSignal;
}

/** The dry run's answer: what was read, each record's plan in source order, and the sums. */
export interface DryRunPlan {
  sources: SourceRead[];
  records: RecordPlan[];
  summary: DryRunSummary;
  /** No record would fail. */
  ok: boolean;
  /**
   * Work queued before the dry run that it did not preview (jobs waiting, delayed or active; import batches not yet
   * jobs), per stream: the real run processes it too. Filled in by the command.
   */
  alreadyQueued?: Record<string, { jobs: number; batches: number }>;
}

/** A failure the real job would end with at once: a permanent job error, or a service answer no retry changes. */
function failureOf(err: unknown): RecordPlan['error'] | undefined {
  if (err instanceof PermanentJobError) return { code: err.code, message: err.message, hint: err.hint };
  if (isServiceError(err) && !err.retryable) return { code: err.code, message: err.message, hint: err.hint };
  return undefined;
}

/** The plan of one record that reached its kind: skipped, previewed, or failing as its job would. */
async function planRecord(
  kind: Kind,
  job: RecordJob,
  ctx: PreviewContext,
  o: DryRunOptions,
): Promise<PreviewResult & Pick<RecordPlan, 'error'>> {
  try {
    const { record } = checkedJobRecord(kind, { data: job.data, id: job.opts.jobId });
    const skip = o.skipReason?.(kind.stream, record);
    if (skip !== undefined) return { outcome: 'skipped', summary: `skipped: ${skip}`, calls: [] };
    if (!kind.job.preview) throw new Error(`the ${kind.stream} kind of job has no preview`);
    return await kind.job.preview(record, ctx);
  } catch (err) {
    const error = failureOf(err);
    if (!error) throw err;
    // Only what the service lacks: a worker's job would wait for it instead (src/queue/wait/); a one-shot run fails it.
    const waitsFor = err instanceof MissingReferenceError ? { waitsFor: err.refs.map(refWords) } : {};
    return { outcome: 'fails', summary: `[${error.code}] ${error.message}`, calls: [], error, ...waitsFor };
  }
}

/** A record not planned: seen before in this run, or its job already ended (completed or failed). */
function skippedPlan(jobId: string, state: string | undefined): Pick<RecordPlan, 'outcome' | 'summary'> | undefined {
  if (state === 'seen') return { outcome: 'duplicate', summary: 'the same record again in this run: no calls' };
  if (state === 'completed') return { outcome: 'unchanged', summary: `already synced: its job ${jobId} completed; no calls` };
  if (state === 'failed')
    return {
      outcome: 'duplicate',
      summary: `its job ${jobId} failed before and is not queued again (inventory-sync jobs show ${jobId}); no calls`,
    };
  return undefined;
}

/**
 * The whole path of a run but the writes: each source's records read (the feed from its stored cursor, which does not
 * move), checked, and previewed by their kind, with a client and a Redis that refuse writes. Nothing is queued.
 */
export async function dryRun(d: DryRunDeps, o: DryRunOptions): Promise<DryRunPlan> {
  const client = readOnlyApi(d.client);
  const redis = readOnlyRedis(d.redis);
  const memos = new Map<string, unknown>();
  const seen = new Set<string>();
  const records: RecordPlan[] = [];
  const sources: SourceRead[] = [];
  for (const source of o.sources) {
    const kind = o.kinds.find((k) => k.stream === source.stream);
    if (!kind) throw new Error(`no job kind handles stream ${source.stream}`);
    const read: SourceRead = {
      stream: source.stream,
      from: source.from,
      records: 0,
      ...(source.from === 'file' && typeof source.file === 'string' ? { file: source.file } : {}),
    };
    sources.push(read);
    const deps: SourceDeps = {
      upstream: d.upstream,
      store: d.store,
      queues: d.queues,
      redis,
      keys: d.keys,
      pageSize: d.jobs.feedPageSize,
      maxRecordBytes: d.maxRecordBytes,
      stdin: o.stdin,
      signal: o.signal,
    };
    for await (const job of sourceJobs(kind, source, deps, read)) {
      const jobId = job.opts.jobId;
      const base = {
        stream: source.stream,
        key: recordLabel(kind, job.data, jobId),
        ...(job.data.line ? { line: job.data.line } : {}),
        jobId,
        calls: [],
        reads: [],
      };
      const state = seen.has(jobId) ? 'seen' : await o.existingJob?.(source.stream, jobId);
      seen.add(jobId);
      const skipped = skippedPlan(jobId, state);
      if (skipped) {
        records.push({ ...base, ...skipped });
        continue;
      }
      const reads: ApiCall[] = [];
      const ctx: PreviewContext = {
        jobId,
        stream: source.stream,
        attempt: 1,
        client: tracedClient(client, (call) => reads.push(call), o.signal),
        catalog: d.catalog,
        redis,
        keys: d.keys,
        logger: d.logger,
        jobs: d.jobs,
        note: (message, data) => d.logger.debug({ jobId, data }, message),
        settling: (_pending, fn) => fn(),
        ...(job.data.fromService ? { fromService: job.data.fromService } : {}),
        memo: <T>(name: string, make: () => T): T => {
          if (!memos.has(name)) memos.set(name, make());
          return memos.get(name) as T;
        },
      };
      const plan = await planRecord(kind, job, ctx, o);
      const queued = state ? ` (already queued as job ${jobId}, ${state})` : '';
      records.push({ ...base, ...plan, summary: plan.summary + queued, reads: reads.map((c) => ({ method: 'GET', path: c.path })) });
    }
  }
  const summary = summarizePlans(records);
  // An empty backlog is no source worth naming.
  const read = sources.filter((s) => s.from !== 'queue' || s.records > 0);
  return { sources: read, records, summary, ok: summary.fails === 0 };
}
