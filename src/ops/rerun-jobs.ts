import type { Queue } from 'bullmq';
import type { RedisConnection as Redis } from '../redis/connection.js';
import { findJobIds } from '../queue/job-index.js';
import { jobIdFor } from '../queue/job-id.js';
import type { FromService, JobData } from '../queue/queues.js';
import type { RecordJob } from '../queue/record-jobs.js';
import { checkRecord, recordKey } from '../records/records.js';
import type { CheckedKind } from '../records/record-kind.js';
import type { StreamName } from '../records/stream-name.js';

/** A run's id: a suffix that keeps its jobs apart from the record's own job, and from every other run's. */
export function runId(now = Date.now()): string {
  return `${now.toString(36)}${Math.floor(Math.random() * 36 ** 3).toString(36)}`;
}

/**
 * The job that sends a record through its kind again (`resync`, `reconcile --repair`): id
 * `{record's job id}-{reason}-{run}` (BullMQ would take the record's own id for a re-delivery and do nothing),
 * data the record with `fromService`, which tells the kind to plan from the service's state.
 */
export function rerunJob(kind: CheckedKind, record: unknown, fromService: FromService & { run: string }): RecordJob {
  const data: JobData = { record, source: fromService.reason, fromService };
  return { name: kind.stream, data, opts: { jobId: `${jobIdFor(kind, record)}-${fromService.reason}-${fromService.run}` } };
}

/** The newest version of a key the program recorded: the record of its newest job (any state) that reads. */
export interface RecordedVersion {
  stream: StreamName;
  key: string;
  jobId: string;
  record: unknown;
  state: string;
}

/** A kept job of the key whose record cannot be sent again as it is (unreadable, or not of its kind's shape), and why. */
export interface UnusableVersion {
  stream: StreamName;
  key: string;
  jobId: string;
  state: string;
  why: string;
}

/** Why a kept job's record cannot be sent again; undefined when it can (or it is not the key's). */
function unusableWhy(kind: CheckedKind, data: JobData, key: string): string | undefined {
  if (data.parseError !== undefined) return data.key === key ? data.parseError : undefined;
  if (recordKey(kind, data.record) !== key) return undefined;
  const checked = checkRecord(kind, data.record);
  if (checked.ok) return undefined;
  const first = checked.problems[0];
  return first ? `${first.field}: ${first.reason}` : 'does not match its shape';
}

/**
 * Per stream, the newest recorded version of `key` (its jobs from the job index: the days of job retention); and,
 * for a stream with none, the newest kept job of the key whose record cannot be sent again (`unusable`), so that a
 * key known only by a failed bad record is told apart from an unknown one.
 */
export async function newestVersions(
  redis: Redis,
  prefix: string,
  queues: { get(stream: StreamName): Queue },
  kinds: readonly CheckedKind[],
  key: string,
): Promise<{ versions: RecordedVersion[]; unusable: UnusableVersion[] }> {
  const ids = await findJobIds(
    redis,
    prefix,
    key,
    kinds.map((k) => k.stream),
  );
  const newest = new Map<StreamName, { v: RecordedVersion; at: number }>();
  const unusable = new Map<StreamName, { v: UnusableVersion; at: number }>();
  for (const id of ids) {
    const kind = kinds.find((k) => id.startsWith(`${k.stream}-`));
    if (!kind) continue;
    const job = await queues.get(kind.stream).getJob(id);
    const data = job?.data as JobData | undefined;
    if (!job || !data) continue;
    const why = unusableWhy(kind, data, key);
    const at = job.timestamp ?? 0;
    if (why !== undefined) {
      const seen = unusable.get(kind.stream);
      if (!seen || seen.at < at)
        unusable.set(kind.stream, { v: { stream: kind.stream, key, jobId: id, state: await job.getState(), why }, at });
      continue;
    }
    if (data.parseError !== undefined || recordKey(kind, data.record) !== key) continue;
    const before = newest.get(kind.stream);
    if (before && before.at >= at) continue;
    newest.set(kind.stream, { v: { stream: kind.stream, key, jobId: id, record: data.record, state: await job.getState() }, at });
  }
  return {
    versions: kinds.flatMap((k) => (newest.has(k.stream) ? [newest.get(k.stream)!.v] : [])),
    unusable: kinds.flatMap((k) => (!newest.has(k.stream) && unusable.has(k.stream) ? [unusable.get(k.stream)!.v] : [])),
  };
}
