import type { Job, Queue } from 'bullmq';
import type { JobResult } from '../queue/job-context.js';
import { describeFailed, type FailedJobSummary } from '../queue/drain.js';
import { FAILURE_GROUP_FIELD, FAILURE_GROUP_FOR_FIELD, RETRY_HELPS_FIELD, retryHelpsOf } from '../queue/failure-group.js';
import type { JobData, QueueSet } from '../queue/queues.js';
import type { KeyedKind } from '../records/record-kind.js';
import type { RedisConnection as Redis } from '../redis/connection.js';
import type { StreamName } from '../records/stream-name.js';
import type { RunLedger, WorkedJob } from './run-ledger.js';

/** Ids read per round trip. */
const PAGE = 500;

/**
 * How the records one run read ended, each counted once (repeats in the run apart), and the jobs queued before the run
 * that its workers finished. synced + unchanged + skipped + failed + syncedBefore + failedBefore + waiting + missing is
 * the number of distinct records.
 */
export interface RecordOutcomes {
  /** Distinct records read (tracked: see untracked). */
  records: number;
  /** Records read again in the same run (the same record twice in a file, or on two pages). */
  repeated: number;
  /** Records past the run's memory for ids (1,000,000): counted, not followed to their end. */
  untracked: number;
  /** Completed in this run: written to the service. */
  synced: number;
  /** Completed in this run: the service already matched, nothing written. */
  unchanged: number;
  /** Completed in this run, left alone on purpose: how many, by the kind's reason. */
  skipped: number;
  skippedWhy: Record<string, number>;
  /** Failed for good in this run. */
  failed: FailedJobSummary[];
  /** Their job had completed before this run: an identical record is queued once. */
  syncedBefore: number;
  /** Their job had failed before this run, and is not queued again: it stays failed until fixed or retried. */
  failedBefore: FailedJobSummary[];
  /** Not finished when the run ended (their stream paused, or the run stopped). */
  waiting: number;
  /** Without a job at the end (their import batch failed: listed in `failed`; or the job was removed meanwhile). */
  missing: number;
  /** Jobs queued before the run that its workers finished: their outcomes, failures listed. */
  earlier: { synced: number; unchanged: number; skipped: number; skippedWhy: Record<string, number>; failed: FailedJobSummary[] };
}

type JobEnd =
  | { state: 'completed'; finishedOn: number; result?: Pick<JobResult, 'outcome' | 'why'> }
  | { state: 'failed'; finishedOn: number }
  | { state: 'pending' }
  | { state: 'missing' };

/** Where each of these jobs is now, with its finish time and a completed job's outcome (a few commands per id). */
async function readEnds(redis: Redis, queue: Queue, ids: readonly string[]): Promise<JobEnd[]> {
  const out: JobEnd[] = [];
  for (let i = 0; i < ids.length; i += PAGE) {
    const page = ids.slice(i, i + PAGE);
    const pipe = redis.pipeline();
    for (const id of page)
      pipe.zscore(queue.keys.completed!, id).zscore(queue.keys.failed!, id).hmget(queue.toKey(id), 'returnvalue', 'timestamp');
    const replies = ((await pipe.exec()) ?? []).map(([err, v]) => (err ? null : v));
    page.forEach((_, j) => {
      const [completed, failed, fields] = replies.slice(j * 3, j * 3 + 3) as [string | null, string | null, Array<string | null> | null];
      if (completed !== null) out.push({ state: 'completed', finishedOn: Number(completed), result: parseResult(fields?.[0]) });
      else if (failed !== null) out.push({ state: 'failed', finishedOn: Number(failed) });
      else out.push(fields?.[1] ? { state: 'pending' } : { state: 'missing' });
    });
  }
  return out;
}

function parseResult(text: string | null | undefined): Pick<JobResult, 'outcome' | 'why'> | undefined {
  if (!text) return undefined;
  try {
    const v = JSON.parse(text) as { outcome?: unknown; why?: unknown } | null;
    if (v?.outcome !== 'synced' && v?.outcome !== 'unchanged' && v?.outcome !== 'skipped') return undefined;
    return { outcome: v.outcome, ...(typeof v.why === 'string' ? { why: v.why } : {}) };
  } catch {
    return undefined;
  }
}

/** The failed jobs among these ids, each named by its record and reason, and marked when no retry can help it. */
async function describeIds(redis: Redis, queue: Queue, ids: readonly string[], kinds: readonly KeyedKind[]): Promise<FailedJobSummary[]> {
  const out: FailedJobSummary[] = [];
  for (let i = 0; i < ids.length; i += PAGE) {
    const page = ids.slice(i, i + PAGE);
    const jobs = await Promise.all(page.map((id) => queue.getJob(id) as Promise<Job<JobData, JobResult> | undefined>));
    const helps = await retryHelpsOfIds(redis, queue, page);
    page.forEach((id, j) => {
      const job = jobs[j];
      const failed = job ? describeFailed(queue.name, job, kinds) : { id, key: id, reason: '[UNKNOWN] no reason recorded' };
      out.push(helps[j] ? failed : { ...failed, retryHelps: false });
    });
  }
  return out;
}

/** For each job, whether a retry can help it, as recorded beside its failure (one pipelined HMGET each). */
async function retryHelpsOfIds(redis: Redis, queue: Queue, ids: readonly string[]): Promise<boolean[]> {
  const pipe = redis.pipeline();
  for (const id of ids) pipe.hmget(queue.toKey(id), 'failedReason', FAILURE_GROUP_FIELD, RETRY_HELPS_FIELD, FAILURE_GROUP_FOR_FIELD);
  return ((await pipe.exec()) ?? []).map(([err, value]) => {
    const [reason, group, helps, groupFor] = err ? [] : ((value as Array<string | null> | undefined) ?? []);
    return retryHelpsOf(reason || undefined, group || undefined, helps || undefined, groupFor || undefined);
  });
}

const bump = (m: Record<string, number>, why: string | undefined) => {
  const k = why ?? 'skipped';
  m[k] = (m[k] ?? 0) + 1;
};

/** How the run's records of one stream ended, and the jobs queued before it that its workers finished (see RecordOutcomes). */
export async function readOutcomes(
  ledger: RunLedger,
  stream: StreamName,
  o: { redis: Redis; queues: Pick<QueueSet, 'get' | 'intake'>; kinds: readonly KeyedKind[] },
): Promise<RecordOutcomes> {
  const l = ledger.stream(stream);
  const queue = o.queues.get(stream);
  const ids = [...l.records];
  const ends = await readEnds(o.redis, queue, ids);
  const r: RecordOutcomes = {
    records: ids.length,
    repeated: l.repeated,
    untracked: l.untracked,
    synced: 0,
    unchanged: 0,
    skipped: 0,
    skippedWhy: {},
    failed: [],
    syncedBefore: 0,
    failedBefore: [],
    waiting: 0,
    missing: 0,
    earlier: { synced: 0, unchanged: 0, skipped: 0, skippedWhy: {}, failed: [] },
  };
  const failedNow: string[] = [];
  const failedBefore: string[] = [];
  ends.forEach((end, i) => {
    if (end.state === 'pending') r.waiting++;
    else if (end.state === 'missing') r.missing++;
    else if (end.finishedOn < ledger.startedAt) {
      if (end.state === 'completed') r.syncedBefore++;
      else failedBefore.push(ids[i]!);
    } else if (end.state === 'failed') failedNow.push(ids[i]!);
    else count(r, end.result?.outcome ?? 'synced', end.result?.why);
  });
  const earlier: Array<[string, WorkedJob]> = [...l.worked].filter(([id]) => !l.records.has(id));
  for (const [, w] of earlier) if (w.outcome !== 'failed') count(r.earlier, w.outcome, w.why);
  const earlierFailed = earlier.filter(([, w]) => w.outcome === 'failed').map(([id]) => id);
  r.failed = [...(await describeIds(o.redis, queue, failedNow, o.kinds)), ...(await failedBatches(ledger, stream, o))];
  r.failedBefore = await describeIds(o.redis, queue, failedBefore, o.kinds);
  r.earlier.failed = await describeIds(o.redis, queue, earlierFailed, o.kinds);
  return r;
}

function count(into: Pick<RecordOutcomes, 'synced' | 'unchanged' | 'skipped' | 'skippedWhy'>, outcome: JobResult['outcome'], why?: string) {
  if (outcome === 'skipped') {
    into.skipped++;
    bump(into.skippedWhy, why);
  } else into[outcome]++;
}

/**
 * The run's import batches that failed (Redis failed them on every attempt), and earlier ones its workers failed: their
 * records never became jobs.
 */
async function failedBatches(
  ledger: RunLedger,
  stream: StreamName,
  o: { redis: Redis; queues: Pick<QueueSet, 'intake'>; kinds: readonly KeyedKind[] },
): Promise<FailedJobSummary[]> {
  const intake = o.queues.intake(stream);
  const l = ledger.stream(stream);
  const ids = [...l.batches];
  const ends = await readEnds(o.redis, intake, ids);
  const failed = new Set([...ids.filter((_, i) => ends[i]!.state === 'failed'), ...l.failedBatches]);
  return describeIds(o.redis, intake, [...failed], o.kinds);
}
