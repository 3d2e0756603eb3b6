import type { Job } from 'bullmq';
import { problemsOf, recordKey } from '../records/records.js';
import { zodProblems } from '../errors/zod-problems.js';
import { RECORD_HINT } from '../errors/error-hints.js';
import { BadRecordError } from './job-errors.js';
import { jobDataSchema, type FromService, type JobData } from './queues.js';
import { recordLabel } from './record-jobs.js';
import type { RunnerKind } from './runner-kind.js';

/** Where a record that could not be read went wrong: its transform, its line of a file, or the record. */
function parseErrorField(data: Pick<JobData, 'line' | 'upstreamId'>): string {
  if (data.upstreamId !== undefined) return '(transform)';
  return data.line === undefined ? '(record)' : '(line)';
}

/**
 * The record of a job, checked against its kind; a BadRecordError naming record, field and reason otherwise
 * (the dry run checks with it too, so its bad records read as the real run's).
 */
export function checkedJobRecord<R>(
  kind: RunnerKind<R>,
  job: Pick<Job, 'data' | 'id'>,
): { record: R; key: string; fromService?: FromService } {
  const data = jobDataSchema.safeParse(job.data);
  if (!data.success) {
    const [issue] = zodProblems(data.error.issues, { under: 'data.' });
    throw new BadRecordError(`job ${job.id}`, issue?.field ?? 'data.', issue?.reason ?? 'is not { record, source }', RECORD_HINT);
  }
  const label = recordLabel(kind, data.data, job.id);
  if (data.data.parseError !== undefined) throw new BadRecordError(label, parseErrorField(data.data), data.data.parseError, RECORD_HINT);
  const parsed = kind.record.schema.safeParse(data.data.record);
  if (!parsed.success) {
    const [first, ...more] = problemsOf(parsed.error);
    const also = more.length ? ` (and ${more.map((p) => `${p.field}: ${p.reason}`).join('; ')})` : '';
    throw new BadRecordError(label, first?.field ?? '(record)', `${first?.reason ?? 'does not match its shape'}${also}`, RECORD_HINT);
  }
  const key = recordKey(kind, data.data.record) ?? label;
  return data.data.fromService ? { record: parsed.data, key, fromService: data.data.fromService } : { record: parsed.data, key };
}
