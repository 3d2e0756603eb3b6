import type { Queue } from 'bullmq';
import { recordKey } from '../records/records.js';
import type { KeyedKind } from '../records/record-kind.js';

/** The newest synced version of one record: the completed job that says so. */
export interface SyncedRecord {
  key: string;
  jobId: string;
  record: unknown;
  outcome: string;
  details: Record<string, unknown>;
  processedOn: number;
  finishedOn: number;
  /** The job was a resync or a repair (a version synced before, applied again). */
  again?: boolean;
}

const PAGE = 500;
/** Outcomes that mean the service holds the record (a skipped record was deliberately not applied). */
export const APPLIED: ReadonlySet<string> = new Set(['synced', 'unchanged']);

/** Whether a version applied (its record, when its job finished) is the reference in place of the one kept so far. */
function replaces(kind: SyncedStream, before: SyncedRecord, record: unknown, finishedOn: number, again: boolean): boolean {
  // A resync or repair re-applies a version synced before: the first sync stays the reference (its time is
  // when its effects began, e.g. an order's shipment for the stock rule), unless it is gone.
  if (before.again !== again) return !again;
  return kind.ops?.reconcile?.newer?.(record, before.record) ?? finishedOn > before.finishedOn;
}

/** A stream as its synced records are read: its key, and its kind's rule of which version is the reference. */
export type SyncedStream = KeyedKind & { ops?: { reconcile?: { newer?(a: unknown, b: unknown): boolean | undefined } } };

/**
 * Per business key, the newest completed job whose record was applied (synced, or already matching): what the
 * program recorded as synced; the newest by the kind's own rule when it has one (an order's snapshot by updatedAt).
 * Completed jobs are kept 7 days (at most 50,000 per stream), so that is what is covered.
 */
export async function syncedRecords(queue: Pick<Queue, 'getJobs'>, kind: SyncedStream): Promise<Map<string, SyncedRecord>> {
  const out = new Map<string, SyncedRecord>();
  for (let start = 0; ; start += PAGE) {
    const jobs = await queue.getJobs(['completed'], start, start + PAGE - 1, true);
    for (const job of jobs) {
      if (!job?.id) continue;
      const rv = (job.returnvalue ?? {}) as { outcome?: unknown; details?: unknown };
      if (typeof rv.outcome !== 'string' || !APPLIED.has(rv.outcome)) continue;
      const data = job.data as { record?: unknown; fromService?: unknown } | undefined;
      const record = data?.record;
      const key = recordKey(kind, record);
      if (key === undefined) continue;
      const finishedOn = job.finishedOn ?? 0;
      const before = out.get(key);
      const again = data?.fromService !== undefined;
      if (before && !replaces(kind, before, record, finishedOn, again)) continue;
      const details = rv.details && typeof rv.details === 'object' ? (rv.details as Record<string, unknown>) : {};
      out.set(key, {
        key,
        jobId: job.id,
        record,
        outcome: rv.outcome,
        details,
        processedOn: job.processedOn ?? finishedOn,
        finishedOn,
        again,
      });
    }
    if (jobs.length < PAGE) break;
  }
  return out;
}
