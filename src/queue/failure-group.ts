import { createHash } from 'node:crypto';
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
/** Beside it, a short hash of the failedReason the group was written for: the group counts only for that failure. */
export const FAILURE_GROUP_FOR_FIELD = 'failureGroupFor';
/**
 * Beside them, once known, the id of the newer version of the record that synced after this job was queued: the
 * failure is history, not a failure now (src/ops/failures-now.ts writes it when it finds one, so that it stays known
 * after the newer job is trimmed).
 */
export const SUPERSEDED_FIELD = 'supersededBy';

/** A failure's group: its code and its subject-free reason. */
export interface FailureGroup {
  code: string;
  reason: string;
}

/** What FAILURE_GROUP_FOR_FIELD holds for a failedReason. */
export const failedReasonHash = (failedReason: string): string => createHash('sha256').update(failedReason).digest('hex').slice(0, 12);

/**
 * Writes a failing job's group reason beside its failedReason (one command, on failing attempts only), only into a
 * job that still exists: a job removed meanwhile (an operator, the bad-record trim) must not come back as a hash of
 * one field that nothing would ever remove. `failedReason`: the `[CODE] message` the job fails with, so that the
 * group need not be a part of its text (a refusal's reason without the order it names in the middle).
 */
export async function recordFailureGroup(
  redis: Redis,
  job: Pick<Job, 'id' | 'queueQualifiedName'>,
  reason: string,
  retryHelps = true,
  failedReason?: string,
): Promise<void> {
  const forReason = failedReason === undefined ? [] : [FAILURE_GROUP_FOR_FIELD, failedReasonHash(failedReason)];
  await hsetIfExists(
    redis,
    `${job.queueQualifiedName}:${job.id}`,
    FAILURE_GROUP_FIELD,
    reason,
    RETRY_HELPS_FIELD,
    retryHelps ? 'yes' : 'no',
    ...forReason,
  );
}

/**
 * The group of a failed job, from its `[CODE] message` failedReason and the group reason recorded beside it, and
 * whether that recorded group is this failure's (`recorded`). The recorded reason counts only when it was written for
 * this failure: its failedReason's hash was recorded with it, or (groups recorded before the hash was) the message
 * ends with it. A write that failed, or a failure BullMQ made itself, such as a stalled job, leaves an older one or
 * none. Without one (jobs failed before failure groups were recorded) the group is the code and the whole message.
 */
export function failureGroupOf(
  failedReason: string | undefined,
  recorded: string | undefined,
  recordedFor?: string,
): FailureGroup & { recorded: boolean } {
  const { code, message } = splitReason(failedReason) ?? { code: 'UNKNOWN', message: '' };
  const mine =
    recorded !== undefined &&
    (recordedFor !== undefined ? failedReason !== undefined && failedReasonHash(failedReason) === recordedFor : message.endsWith(recorded));
  return { code, reason: mine ? recorded : message, recorded: mine };
}

/**
 * Whether retrying a failed job can help, from its hash's fields: its failedReason, the group reason and the `no`
 * recorded beside it. The `no` counts only when the group it was written with is this failure's (failureGroupOf).
 */
export function retryHelpsOf(
  failedReason: string | undefined,
  recordedGroup: string | undefined,
  helps: string | undefined,
  recordedFor?: string,
): boolean {
  return !(helps === 'no' && failureGroupOf(failedReason, recordedGroup, recordedFor).recorded);
}
