import type { Queue } from 'bullmq';
import type { RedisConnection as Redis } from '../redis.js';
import { checkRecord, recordKey, recordKeyField } from '../feed/records.js';
import { jobIdFor, recordHash } from './job-id.js';
import type { JobData } from './queues.js';
import type { StreamName } from './streams.js';

/** A job as addBulk takes it. */
export interface RecordJob {
  name: StreamName;
  data: JobData;
  opts: { jobId: string };
}

/** A raw record's job id, and whether it matches its shape (with every problem as "field: reason" when not). */
export function checkedRecord(stream: StreamName, raw: unknown): { id: string; valid: boolean; problems: string[] } {
  const check = checkRecord(stream, raw);
  const problems = check.ok ? [] : check.problems.map((p) => `${p.field}: ${p.reason}`);
  return { id: jobIdFor(stream, raw), valid: check.ok, problems };
}

/** A record as a job, with whether it matches its shape (an invalid one still becomes a job that fails at once). */
export function recordJob(
  stream: StreamName,
  raw: unknown,
  source: JobData['source'],
  line?: number,
): { job: RecordJob; valid: boolean; problems: string[] } {
  const data: JobData = line === undefined ? { record: raw, source } : { record: raw, source, line };
  const { id, valid, problems } = checkedRecord(stream, raw);
  return { job: { name: stream, data, opts: { jobId: id } }, valid, problems };
}

/** The job id of an NDJSON line that is not JSON at all (its job fails at once naming the line). */
export function badLineId(stream: StreamName, line: number, text: string): string {
  return `${stream}-invalid-${recordHash({ unparsable: text, line })}`;
}

/** The name operators see for a record: its business key, else its line, else its job id. */
export function recordLabel(stream: StreamName, data: Pick<JobData, 'record' | 'line' | 'parseError'>, jobId?: string): string {
  const key = data.parseError === undefined ? recordKey(stream, data.record) : undefined;
  if (key !== undefined) return key;
  if (data.line !== undefined) return `line ${data.line}`;
  return `(no ${recordKeyField[stream]})${jobId ? ` ${jobId}` : ''}`;
}

/**
 * Adds jobs with ONE addBulk. Ids already in the queue (re-deliveries) are no-ops there; they are counted
 * as duplicates, as are repeats within the batch. The count is one EXISTS over all ids (all of a queue's keys
 * share its prefix, hence one Redis Cluster slot when the prefix has a hash tag).
 */
export async function addJobs(queue: Queue<JobData>, redis: Redis, jobs: RecordJob[]): Promise<{ queued: number; duplicates: number }> {
  const unique = [...new Map(jobs.map((j) => [j.opts.jobId, j])).values()];
  if (unique.length === 0) return { queued: 0, duplicates: jobs.length };
  const existing = await redis.exists(...unique.map((j) => queue.toKey(j.opts.jobId)));
  await queue.addBulk(unique);
  return { queued: unique.length - existing, duplicates: jobs.length - unique.length + existing };
}
