import { createHash } from 'node:crypto';
import type { Queue } from 'bullmq';
import type { RedisConnection as Redis } from '../redis/connection.js';
import { keyInHead } from '../records/record-head.js';
import { checkRecord, recordKey } from '../records/records.js';
import type { CheckedKind, KeyedKind } from '../records/record-kind.js';
import { indexJobIds } from './job-index.js';
import { QUOTE_CHARS, UnreadableRecord } from '../records/unreadable-record.js';
import { idSafe, jobIdFor, jobIdHash, unreadableJobId } from './job-id.js';
import { withJobTraces } from '../telemetry/enqueue-spans.js';
import type { JobData } from './queues.js';
import type { StreamName } from '../records/stream-name.js';
import { messageOf } from '../errors/message-of.js';

/** A job as addBulk takes it. */
export interface RecordJob {
  name: StreamName;
  data: JobData;
  opts: { jobId: string };
}

/** A raw record's job id, and whether it matches its shape (with every problem as "field: reason" when not). */
export function checkedRecord(kind: CheckedKind, raw: unknown): { id: string; valid: boolean; problems: string[] } {
  const check = checkRecord(kind, raw);
  const problems = check.ok ? [] : check.problems.map((p) => `${p.field}: ${p.reason}`);
  return { id: jobIdFor(kind, raw), valid: check.ok, problems };
}

/** sha256 of what can be had of a value that could not be given its job id the usual way. */
function fallbackHash(raw: unknown, err: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(raw) ?? String(raw);
  } catch {
    text = `unreadable:${String(err)}`;
  }
  return createHash('sha256').update(text).digest('hex');
}

/** The start of a record's text, to quote and to find its key in. */
function headOf(raw: unknown): string {
  try {
    return (JSON.stringify(raw) ?? String(raw)).slice(0, 4096);
  } catch {
    return '';
  }
}

/** Why a record could not be checked, in the words operators read. */
function whyUnchecked(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  return code === 'RECORD_TOO_DEEP' ? (err as Error).message : `could not be checked (${messageOf(err)})`;
}

/** A record that could not be read or checked, as a job that fails at once naming its key (when found) and why. */
export function unreadableJob(
  kind: KeyedKind,
  u: Pick<UnreadableRecord, 'reason' | 'head' | 'hash'>,
  source: JobData['source'],
  line?: number,
): RecordJob {
  const key = keyInHead(kind, u.head);
  const data: JobData = { record: u.head.slice(0, QUOTE_CHARS), source, parseError: u.reason };
  if (key !== undefined) data.key = key;
  if (line !== undefined) data.line = line;
  return { name: kind.stream, data, opts: { jobId: unreadableJobId(kind.stream, key, u.hash) } };
}

/**
 * A record as a job, with whether it matches its shape (an invalid one still becomes a job that fails at once).
 * Never throws for a record: one that cannot be read (an UnreadableRecord of the feed) or checked (nested too
 * deep, or anything else) becomes a job of its own that fails at once, so it cannot stop the records around it.
 */
export function recordJob(
  kind: CheckedKind,
  raw: unknown,
  source: JobData['source'],
  line?: number,
): { job: RecordJob; valid: boolean; problems: string[] } {
  if (raw instanceof UnreadableRecord)
    return { job: unreadableJob(kind, raw, source, line), valid: false, problems: [`(record): ${raw.reason}`] };
  try {
    const data: JobData = line === undefined ? { record: raw, source } : { record: raw, source, line };
    const { id, valid, problems } = checkedRecord(kind, raw);
    return { job: { name: kind.stream, data, opts: { jobId: id } }, valid, problems };
  } catch (err) {
    const reason = whyUnchecked(err);
    const u = { reason, head: headOf(raw), hash: fallbackHash(raw, err) };
    return { job: unreadableJob(kind, u, source, line), valid: false, problems: [`(record): ${reason}`] };
  }
}

/**
 * The job id of a line (or CSV record) that cannot be read or checked (its job fails at once naming the line):
 * `{stream}-{key}-{hash}` when its key is known, so `find` finds it by its key, else `{stream}-invalid-{hash}`.
 */
export function badLineId(stream: StreamName, line: number, text: string, key?: string): string {
  return `${stream}-${key === undefined ? 'invalid' : idSafe(key)}-${jobIdHash({ unparsable: text, line })}`;
}

/**
 * The name operators see for a record: its business key, else its line, else its job id. A record that could not
 * be read is named by the key found at its start and by its line, when it has them; one a transform made or
 * refused, by its upstream payload's id too.
 */
export function recordLabel(
  kind: KeyedKind,
  data: Pick<JobData, 'record' | 'line' | 'parseError' | 'key' | 'upstreamId'>,
  jobId?: string,
): string {
  const key = data.parseError === undefined ? recordKey(kind, data.record) : data.key;
  // Made (or refused) by a transform: named by the upstream payload too, which is what the sender knows.
  const upstream = data.upstreamId;
  if (upstream !== undefined) return key !== undefined && key !== upstream ? `${key} (upstream ${upstream})` : `upstream ${upstream}`;
  if (key !== undefined) return data.parseError !== undefined && data.line !== undefined ? `${key} (line ${data.line})` : key;
  if (data.line !== undefined) return `line ${data.line}`;
  return `(no ${kind.record.keyField})${jobId ? ` ${jobId}` : ''}`;
}

/** A stand-in for a job that Redis refused on its own (e.g. its data would not serialize): fails at once, saying so. */
function refusedJob(job: RecordJob, err: unknown, kind: KeyedKind): RecordJob {
  const d = job.data;
  const data: JobData = { record: '', source: d.source, parseError: `could not be queued (${messageOf(err)})` };
  const key = d.parseError === undefined ? recordKey(kind, d.record) : d.key;
  if (key !== undefined) data.key = key;
  if (d.line !== undefined) data.line = d.line;
  return { ...job, data };
}

/**
 * Adds jobs with ONE addBulk. Ids already in the queue (re-deliveries) are no-ops there; they are counted
 * as duplicates, as are repeats within the batch. The count is one EXISTS over all ids (all of a queue's keys
 * share its prefix, hence one Redis Cluster slot when the prefix has a hash tag). Should the batch be refused,
 * its jobs are added one by one, and a job refused on its own is replaced by one that fails at once: one record
 * never keeps the others out. A refusal of that stand-in too (Redis is down) is thrown.
 */
export async function addJobs(
  queue: Queue<JobData>,
  redis: Redis,
  jobs: RecordJob[],
  kind: KeyedKind,
  o: { fresh?: boolean } = {},
): Promise<{ queued: number; duplicates: number; fresh?: Set<string> }> {
  const unique = [...new Map(jobs.map((j) => [j.opts.jobId, j])).values()];
  if (unique.length === 0) return { queued: 0, duplicates: jobs.length, ...(o.fresh ? { fresh: new Set<string>() } : {}) };
  const ids = unique.map((j) => j.opts.jobId);
  const { existing, fresh } = o.fresh
    ? await freshIds(queue, redis, ids)
    : { existing: await redis.exists(...ids.map((id) => queue.toKey(id))) };
  // Indexed before they are added: `find` skips an id without a job, but would miss a job without an id.
  await indexJobIds(redis, queue.opts.prefix ?? 'bull', ids);
  try {
    await queue.addBulk(withJobTraces(queue, unique));
  } catch {
    for (const job of unique) {
      try {
        await queue.add(job.name, job.data, job.opts);
      } catch (err) {
        const stand = refusedJob(job, err, kind);
        await queue.add(stand.name, stand.data, stand.opts);
      }
    }
  }
  return { queued: unique.length - existing, duplicates: jobs.length - unique.length + existing, ...(fresh ? { fresh } : {}) };
}

/** Which of the ids have no job yet (one EXISTS each, in one round trip), for a caller that asks which were new. */
async function freshIds(queue: Queue<JobData>, redis: Redis, ids: string[]): Promise<{ existing: number; fresh: Set<string> }> {
  const replies = (await redis.pipeline(ids.map((id) => ['exists', queue.toKey(id)])).exec()) ?? [];
  const fresh = new Set<string>();
  replies.forEach(([err, n], i) => {
    if (err) throw err;
    if (Number(n) === 0) fresh.add(ids[i]!);
  });
  return { existing: ids.length - fresh.size, fresh };
}
