import type { TransformEntry } from '../records/transform-fn.js';
import type { CheckedKind } from '../records/record-kind.js';
import type { StreamName } from '../records/stream-name.js';
import { QUOTE_CHARS } from '../records/unreadable-record.js';
import type { IntakeItem } from './intake-queue.js';
import { idSafe, jobIdHash } from './job-id.js';
import type { JobData } from './queues.js';
import { recordJob, type RecordJob } from './record-jobs.js';

/**
 * The job id of a payload a transform refused: `{stream}-{upstreamId}-{hash}`, so that `find <upstreamId>` finds it;
 * the same payload refused again for the same reason (a re-delivery) is the same job.
 */
export function transformProblemId(stream: StreamName, upstreamId: string, upstream: string, problem: string): string {
  return `${stream}-${idSafe(upstreamId)}-${jobIdHash({ upstream, problem })}`;
}

/**
 * One entry of transformPayload (src/feed/transform.ts) as a record job, as `recordJob` makes one for a record:
 * a record it made is checked (an invalid one still becomes a job that fails at once) and carries the upstream
 * id and payload; a problem becomes a job that fails at once (BAD_RECORD) naming the upstream id and the reason.
 */
export function transformedJob(
  kind: CheckedKind,
  entry: TransformEntry,
  source: JobData['source'],
  line?: number,
): { job: RecordJob; valid: boolean; problems: string[] } {
  if ('record' in entry) {
    const made = recordJob(kind, entry.record, source, line);
    return { ...made, job: { ...made.job, data: { ...made.job.data, ...upstreamFields(entry) } } };
  }
  const data: JobData = {
    record: entry.upstream.slice(0, QUOTE_CHARS),
    source,
    parseError: entry.problem,
    key: entry.upstreamId,
    upstreamId: entry.upstreamId,
    upstream: entry.upstream,
  };
  if (line !== undefined) data.line = line;
  const jobId = transformProblemId(kind.stream, entry.upstreamId, entry.upstream, entry.problem);
  return { job: { name: kind.stream, data, opts: { jobId } }, valid: false, problems: [`(transform): ${entry.problem}`] };
}

/** The upstream fields of a job or batch item made from an entry: none when no transform made it. */
export function upstreamFields(entry: TransformEntry): { upstreamId?: string; upstream?: string } {
  return entry.upstream === undefined ? {} : { upstreamId: entry.upstreamId, upstream: entry.upstream };
}

/** A payload a transform refused as an item of an import batch (intake-queue.ts): it fails at once, as above. */
export function problemItem(stream: StreamName, entry: Extract<TransformEntry, { problem: string }>, line: number): IntakeItem {
  return {
    id: transformProblemId(stream, entry.upstreamId, entry.upstream, entry.problem),
    line,
    text: entry.upstream.slice(0, QUOTE_CHARS),
    parseError: entry.problem,
    key: entry.upstreamId,
    upstreamId: entry.upstreamId,
    upstream: entry.upstream,
  };
}
