import type { Job } from 'bullmq';
import { recordKey } from '../feed/records.js';
import { STREAMS, type StreamName } from '../queue/streams.js';
import { hintFor } from './error-hints.js';
import { parseTrace, splitReason, type AttemptTrace } from './job-trace.js';
import { streamOfJobId, type StreamQueues } from './stream-queues.js';

export const JOB_STATES = ['failed', 'active', 'waiting', 'delayed', 'completed'] as const;
export type JobStateName = (typeof JOB_STATES)[number];

/** One line of `jobs list`. */
export interface JobSummary {
  id: string;
  stream: StreamName;
  state: string;
  /** Business key (orderId, countId, productId), when the record has one. */
  key: string | null;
  attemptsMade: number;
  createdAt: string;
  finishedAt: string | null;
  /** For failed jobs: `[CODE] message` split. */
  reason: { code: string; message: string } | null;
  /** For completed jobs: synced, unchanged or skipped, and the job's one-line summary. */
  outcome: string | null;
  summary: string | null;
}

/** Everything `jobs show` tells about one job. */
export interface JobStory extends JobSummary {
  record: unknown;
  source: string | null;
  maxAttempts: number;
  processedAt: string | null;
  error: { code: string; message: string; hint: string | null; retryable: boolean | null } | null;
  result: unknown;
  attempts: AttemptTrace[];
  /** Job log lines that are not attempt traces. */
  otherLogs: string[];
}

const iso = (ms: number | undefined | null) => (ms ? new Date(ms).toISOString() : null);

interface JobData {
  record?: unknown;
  source?: string;
}

function summarize(job: Job, stream: StreamName, state: string): JobSummary {
  const data = (job.data ?? {}) as JobData;
  const rv = job.returnvalue as { outcome?: unknown; summary?: unknown } | null | undefined;
  return {
    id: job.id ?? '',
    stream,
    state,
    key: recordKey(stream, data.record) ?? null,
    attemptsMade: job.attemptsMade,
    createdAt: iso(job.timestamp) ?? '',
    finishedAt: iso(job.finishedOn),
    reason: state === 'failed' ? (splitReason(job.failedReason) ?? null) : null,
    outcome: state === 'completed' && typeof rv?.outcome === 'string' ? rv.outcome : null,
    summary: state === 'completed' && typeof rv?.summary === 'string' ? rv.summary : null,
  };
}

export interface ListOptions {
  states?: readonly JobStateName[];
  streams?: readonly StreamName[];
  /** Most jobs per stream and state. */
  limit?: number;
}

/** Jobs by state and stream, newest first within each. */
export async function listJobs(queues: StreamQueues, o: ListOptions = {}): Promise<JobSummary[]> {
  const states = o.states ?? ['failed', 'active', 'waiting', 'delayed'];
  const streams = o.streams ?? STREAMS;
  const limit = o.limit ?? 100;
  const out: JobSummary[] = [];
  for (const stream of streams) {
    const queue = queues.get(stream);
    for (const state of states) {
      const jobs = await queue.getJobs([state], 0, limit - 1, state === 'waiting');
      for (const job of jobs) if (job?.id) out.push(summarize(job, stream, state));
    }
  }
  return out;
}

/** Finds a job by id in its stream's queue (or in every queue when the id names none). */
export async function findJob(queues: StreamQueues, id: string): Promise<{ job: Job; stream: StreamName } | undefined> {
  const named = streamOfJobId(id);
  const streams = named ? [named, ...STREAMS.filter((s) => s !== named)] : STREAMS;
  for (const stream of streams) {
    const job = await queues.get(stream).getJob(id);
    if (job) return { job, stream };
  }
  return undefined;
}

/** The whole story of one job: record, attempts with their API calls, the error and what to do about it. */
export async function showJob(queues: StreamQueues, id: string): Promise<JobStory | undefined> {
  const found = await findJob(queues, id);
  if (!found) return undefined;
  const { job, stream } = found;
  const state = await job.getState();
  const { logs } = await queues.get(stream).getJobLogs(id, 0, -1, true);
  const { attempts, otherLines } = parseTrace(logs);
  const data = (job.data ?? {}) as JobData;
  const lastError = [...attempts].reverse().find((a) => a.error)?.error;
  const reason = splitReason(job.failedReason);
  const code = lastError?.code ?? reason?.code;
  const error =
    state === 'failed' || (lastError && state !== 'completed')
      ? {
          code: code ?? 'UNKNOWN',
          message: lastError?.message ?? reason?.message ?? '',
          hint: lastError?.hint ?? hintFor(code) ?? null,
          retryable: lastError?.retryable ?? null,
        }
      : null;
  return {
    ...summarize(job, stream, state),
    record: data.record ?? null,
    source: data.source ?? null,
    maxAttempts: job.opts.attempts ?? 1,
    processedAt: iso(job.processedOn),
    error,
    result: job.returnvalue ?? null,
    attempts,
    otherLogs: otherLines,
  };
}
