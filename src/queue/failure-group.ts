import type { Job } from 'bullmq';
import type { RedisConnection as Redis } from '../redis/connection.js';
import { hsetIfExists } from '../redis/hset-if-exists.js';
import { splitReason } from './job-trace.js';

/**
 * The job hash field beside BullMQ's `failedReason` that holds the failure's group reason: what the failure shares
 * with others of its cause, without its subject (a BadRecordError's `field: reason`, not its record id). Whoever
 * fails a job writes it from the error itself, so no reader parses message text; it lives and dies with the job.
 */
export const FAILURE_GROUP_FIELD = 'failureGroup';
/** Beside it, `no` when retrying the job cannot help (a record wrong in itself): no retry is offered for its group. */
export const RETRY_HELPS_FIELD = 'failureRetryHelps';

/** A failure's group: its code and its subject-free reason. */
export interface FailureGroup {
  code: string;
  reason: string;
}

/**
 * Writes a failing job's group reason beside its failedReason (one command, on failing attempts only), only into a
 * job that still exists: a job removed meanwhile (an operator, the bad-record trim) must not come back as a hash of
 * one field that nothing would ever remove.
 */
export async function recordFailureGroup(
  redis: Redis,
  job: Pick<Job, 'id' | 'queueQualifiedName'>,
  reason: string,
  retryHelps = true,
): Promise<void> {
  await hsetIfExists(
    redis,
    `${job.queueQualifiedName}:${job.id}`,
    FAILURE_GROUP_FIELD,
    reason,
    RETRY_HELPS_FIELD,
    retryHelps ? 'yes' : 'no',
  );
}

/**
 * The group of a failed job, from its `[CODE] message` failedReason and the group reason recorded beside it. The
 * recorded reason counts only when the message ends with it, i.e. it was written for this failure (a write that
 * failed, or a failure BullMQ made itself, such as a stalled job, leaves an older one or none). Without one (jobs
 * failed before failure groups were recorded) the group is the code and the whole message.
 */
export function failureGroupOf(failedReason: string | undefined, recorded: string | undefined): FailureGroup {
  const { code, message } = splitReason(failedReason) ?? { code: 'UNKNOWN', message: '' };
  return { code, reason: recorded && message.endsWith(recorded) ? recorded : message };
}

/**
 * Whether retrying a failed job can help, from its hash's fields: its failedReason, the group reason and the `no`
 * recorded beside it. The `no` counts only when the group it was written with is this failure's (failureGroupOf).
 */
export function retryHelpsOf(failedReason: string | undefined, recordedGroup: string | undefined, helps: string | undefined): boolean {
  const g = failureGroupOf(failedReason, recordedGroup);
  return !(helps === 'no' && !!recordedGroup && g.reason === recordedGroup);
}
