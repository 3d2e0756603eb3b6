import { waitOf } from '../queue/wait/wait-store.js';
import { refWords, type Reference } from '../queue/wait/reference.js';
import { redisKeys } from '../redis/connection.js';
import type { Job, Queue } from 'bullmq';
import { findKind, recordKey } from '../records/records.js';
import type { KeyedKind } from '../records/record-kind.js';
import type { StreamName } from '../records/stream-name.js';
import { BATCH_HINT, readBatch, type BatchStory, type BatchSummary } from './batch-info.js';
import { hintFor } from '../errors/error-hints.js';
import { parseTrace, splitReason, type AttemptTrace } from '../queue/job-trace.js';
import { RETRY_HELPS_FIELD } from '../queue/failure-group.js';
import { supersededBy as supersededByOf } from './failures-now.js';
import { isIntakeJobId, streamOfIntakeJobId, streamOfJobId, type StreamQueues } from '../queue/stream-queues.js';

export const JOB_STATES = ['failed', 'active', 'waiting', 'delayed', 'completed'] as const;
export type JobStateName = (typeof JOB_STATES)[number];

/** One line of `jobs list`. */
export interface JobSummary {
  id: string;
  stream: StreamName;
  state: string;
  /** Business key (orderId, countId, productId), when the record has one; for an import batch its label. */
  key: string | null;
  attemptsMade: number;
  createdAt: string;
  finishedAt: string | null;
  /** For failed jobs: `[CODE] message` split. */
  reason: { code: string; message: string } | null;
  /** For completed jobs: synced, unchanged or skipped, and the job's one-line summary. */
  outcome: string | null;
  summary: string | null;
  /** For an import batch (an intake job whose records are not jobs yet): its size and lines; null for record jobs. */
  batch: BatchSummary | null;
}

/** Everything `jobs show` tells about one job. */
export interface JobStory extends JobSummary {
  /** For an import batch, also the ids of its first record jobs-to-be. */
  batch: BatchStory | null;
  /** The record; null for an import batch. */
  record: unknown;
  /** A record a transform made or refused: the upstream payload's id and the payload (its text when cut at HEAD_CHARS). */
  upstream: { id: string; payload: unknown; cut: boolean } | null;
  source: string | null;
  maxAttempts: number;
  processedAt: string | null;
  /**
   * The error; `retryHelps` false when the failure was recorded as one no retry can help (a record wrong in itself,
   * a damaged import batch): no retry is offered for it.
   */
  error: { code: string; message: string; hint: string | null; retryable: boolean | null; retryHelps?: boolean } | null;
  result: unknown;
  attempts: AttemptTrace[];
  /** Job log lines that are not attempt traces. */
  otherLogs: string[];
  /**
   * A failed record job's newer version that synced since (src/ops/failures-now.ts): the failure is history, and no
   * retry is offered for it; null otherwise.
   */
  supersededBy: string | null;
  /**
   * A record that waits for what the service lacks (src/queue/wait/): what, since when, in words; null otherwise. It
   * goes on by itself once that exists, no attempt spent.
   */
  waitsFor: { refs: Reference[]; since: string; text: string } | null;
}

const iso = (ms: number | undefined | null) => (ms ? new Date(ms).toISOString() : null);

interface JobData {
  record?: unknown;
  source?: string;
  parseError?: string;
  key?: string;
  upstreamId?: string;
  upstream?: string;
}

/**
 * The key of a job's record; one that could not be read (a line, a CSV record failing on a cell) by the key found
 * in it, and a payload a transform refused by its upstream id (its `key`).
 */
function keyOf(kind: KeyedKind | undefined, data: JobData): string | null {
  if (data.parseError !== undefined) return data.key ?? null;
  return (kind && recordKey(kind, data.record)) ?? null;
}

/** The upstream payload a job's record came from, parsed when it was kept whole. */
function upstreamOf(data: JobData): JobStory['upstream'] {
  if (data.upstreamId === undefined) return null;
  if (data.upstream === undefined) return { id: data.upstreamId, payload: null, cut: false };
  try {
    return { id: data.upstreamId, payload: JSON.parse(data.upstream) as unknown, cut: false };
  } catch {
    // Cut at HEAD_CHARS: shown as the text kept.
    return { id: data.upstreamId, payload: data.upstream, cut: true };
  }
}

function summarize(
  job: Job,
  stream: StreamName,
  state: string,
  isBatch: boolean,
  kinds: readonly KeyedKind[],
): JobSummary & { batch: BatchStory | null } {
  const kind = findKind(kinds, stream);
  const data = (job.data ?? {}) as JobData;
  const rv = job.returnvalue as { outcome?: unknown; summary?: unknown } | null | undefined;
  const batch = isBatch ? readBatch(job.data) : undefined;
  return {
    id: job.id ?? '',
    stream,
    state,
    key: batch ? batch.key : keyOf(kind, data),
    attemptsMade: job.attemptsMade,
    createdAt: iso(job.timestamp) ?? '',
    finishedAt: iso(job.finishedOn),
    reason: state === 'failed' ? (splitReason(job.failedReason) ?? null) : null,
    outcome: state === 'completed' && typeof rv?.outcome === 'string' ? rv.outcome : null,
    summary: state === 'completed' && typeof rv?.summary === 'string' ? rv.summary : null,
    batch: batch?.batch ?? null,
  };
}

/** A row of `jobs list`: the batch without the record ids `jobs show` adds. */
function listed(job: Job, stream: StreamName, state: string, isBatch: boolean, kinds: readonly KeyedKind[]): JobSummary {
  const s = summarize(job, stream, state, isBatch, kinds);
  if (!s.batch) return s;
  const { records, firstLine, lastLine } = s.batch;
  return { ...s, batch: { records, firstLine, lastLine } };
}

export interface ListOptions {
  states?: readonly JobStateName[];
  streams?: readonly StreamName[];
  /** Most record jobs per stream and state. Default 100. */
  limit?: number;
  /** Most import batches per stream and state (each is read whole: up to 1,000 records or 4 MiB). Default 10. */
  batchLimit?: number;
}

export const DEFAULT_LIST_LIMIT = 100;
export const DEFAULT_BATCH_LIMIT = 10;

/** Jobs by state and stream, newest first within each (waiting: next first); then the stream's import batches. */
export async function listJobs(queues: StreamQueues, o: ListOptions = {}): Promise<JobSummary[]> {
  const states = o.states ?? ['failed', 'active', 'waiting', 'delayed'];
  const streams = o.streams ?? queues.names;
  const limits = { record: o.limit ?? DEFAULT_LIST_LIMIT, batch: o.batchLimit ?? DEFAULT_BATCH_LIMIT };
  const out: JobSummary[] = [];
  for (const stream of streams) {
    for (const state of states) {
      for (const [queue, isBatch] of [
        [queues.get(stream), false],
        [queues.intake(stream), true],
      ] as const) {
        const jobs = await queue.getJobs([state], 0, (isBatch ? limits.batch : limits.record) - 1, state === 'waiting');
        for (const job of jobs) if (job?.id) out.push(listed(job, stream, state, isBatch, queues.kinds));
      }
    }
  }
  return out;
}

export interface FoundJob {
  job: Job;
  stream: StreamName;
  /** The queue that holds it: the stream's, or its intake queue for an import batch. */
  queue: Queue;
  /** Whether it is an import batch (an intake job). */
  batch: boolean;
}

/**
 * Finds a job by id: a record job in its stream's queue (or in every one when the id names none), an import batch
 * (`intake-…`) in its stream's intake queue (or in every one).
 */
export async function findJob(queues: StreamQueues, id: string): Promise<FoundJob | undefined> {
  const batch = isIntakeJobId(id);
  const named = batch ? streamOfIntakeJobId(id, queues.names) : streamOfJobId(id, queues.names);
  const streams = named ? [named, ...queues.names.filter((s) => s !== named)] : queues.names;
  for (const stream of streams) {
    const queue = batch ? queues.intake(stream) : queues.get(stream);
    const job = await queue.getJob(id);
    if (job) return { job, stream, queue, batch };
  }
  return undefined;
}

type JobError = NonNullable<JobStory['error']>;

function errorOf(
  state: string,
  attempts: AttemptTrace[],
  failedReason: string | undefined,
  batch: boolean,
  kinds: StreamQueues['kinds'],
): JobError | null {
  const lastError = [...attempts].reverse().find((a) => a.error)?.error;
  const reason = splitReason(failedReason);
  const code = lastError?.code ?? reason?.code;
  if (!(state === 'failed' || (lastError && state !== 'completed'))) return null;
  return {
    code: code ?? 'UNKNOWN',
    message: lastError?.message ?? reason?.message ?? '',
    hint: lastError?.hint ?? (batch && code !== 'BAD_BATCH' ? BATCH_HINT : (hintFor(code, kinds) ?? null)),
    retryable: lastError?.retryable ?? null,
  };
}

/** The whole story of one job: record, attempts with their API calls, the error and what to do about it. */
export async function showJob(queues: StreamQueues, id: string): Promise<JobStory | undefined> {
  const found = await findJob(queues, id);
  if (!found) return undefined;
  const { stream, queue, batch } = found;
  const state = await found.job.getState();
  // Finished between the two reads: read it again, so that its result or reason goes with the state shown.
  const job = state === 'completed' || state === 'failed' ? ((await queue.getJob(id)) ?? found.job) : found.job;
  const { logs } = await queue.getJobLogs(id, 0, -1, true);
  const { attempts, otherLines } = parseTrace(logs);
  const data = (job.data ?? {}) as JobData;
  const error = errorOf(state, attempts, job.failedReason, batch, queues.kinds);
  if (error && state === 'failed' && (await queues.redis.hget(queue.toKey(id), RETRY_HELPS_FIELD)) === 'no') error.retryHelps = false;
  const supersededBy = state === 'failed' && !batch ? ((await supersededByOf(queues, stream, id)) ?? null) : null;
  const wait = state === 'delayed' && !batch ? await waitOf(queues.redis, redisKeys(queues.prefix), stream, id) : undefined;
  return {
    ...summarize(job, stream, state, batch, queues.kinds),
    record: batch ? null : (data.record ?? null),
    upstream: batch ? null : upstreamOf(data),
    source: data.source ?? null,
    maxAttempts: job.opts.attempts ?? 1,
    processedAt: iso(job.processedOn),
    error,
    result: job.returnvalue ?? null,
    attempts,
    otherLogs: otherLines,
    supersededBy,
    waitsFor: wait
      ? {
          refs: wait.refs,
          since: new Date(wait.since).toISOString(),
          text: `waits for ${wait.refs.map(refWords).join(', ')} (the service lacks it) since ${new Date(wait.since).toISOString()}`,
        }
      : null,
  };
}
