import { readHolds } from '../queue/hold/hold-report.js';
import { failedNowCount, streamFailures } from '../ops/failures-now.js';
import type { QueueSet } from '../queue/queues.js';
import type { KeyedKind } from '../records/record-kind.js';
import type { StreamName } from '../records/stream-name.js';
import type { RedisConnection as Redis, RedisKeys } from '../redis/connection.js';
import type { RunLedger } from './run-ledger.js';
import { readOutcomes, type RecordOutcomes } from './run-outcomes.js';

/**
 * One stream of a run's summary (`sync --once`, `import --process`; `--json` prints it): what the run read and queued,
 * and how each of its records ended, counted once each, from the run's own ledger (run-ledger.ts). The jobs queued
 * before the run that its workers finished are counted in with it, and told apart in `earlier`.
 */
export interface StreamSummary extends Omit<RecordOutcomes, 'records' | 'earlier'> {
  /** New jobs this run queued. */
  queued: number;
  /** Records not queued again: their job existed before, or the run read them earlier (`repeated`). */
  duplicates: number;
  /** Records that do not match their shape (queued too, to fail at once). */
  invalid: number;
  /** Distinct records the run read, plus the earlier jobs its workers finished (earlier.jobs). */
  records: number;
  /** Completed in this run: synced + unchanged + skipped (the outcomes' figures count the earlier jobs' in too). */
  completed: number;
  /** The jobs queued before this run that its workers finished (counted in the figures above too). */
  earlier: { jobs: number; completed: number; failed: number };
  /** Failed jobs of the stream this run has nothing to do with (from earlier runs): `jobs list --state failed`. */
  otherFailed: number;
  /** Another process held the stream's pull lock for the whole wait; nothing was pulled. */
  locked?: boolean;
  /** The stream's breaker paused it (before or during the run): since when, why, and the jobs left waiting for `resume`. */
  paused?: { since: string | null; reason: string | null; waiting: number };
}

export interface SyncSummary {
  perStream: Record<StreamName, StreamSummary>;
  /** Every record of the run synced (or was left alone on purpose): none failed now or before, none waits, every stream pulled. */
  ok: boolean;
  ms: number;
}

/** What the run queued of a stream, as the pull or the import counted it. */
export interface QueuedCounts {
  queued: number;
  duplicates: number;
  invalid: number;
  locked?: boolean;
}

/** Whether a stream's part of a run lets its command exit 0 (docs/commands.md, "Exit codes"). */
export function streamOk(s: StreamSummary): boolean {
  return s.failed.length === 0 && s.failedBefore.length === 0 && s.waiting === 0 && s.missing === 0 && !s.locked && !s.paused;
}

/** The run's summary per stream, from its ledger and what the pull or import counted; the holds say which stream paused. */
export async function summarizeRun(
  d: { redis: Redis; keys: RedisKeys; queues: QueueSet; kinds: readonly KeyedKind[] },
  ledger: RunLedger,
  queued: ReadonlyMap<StreamName, QueuedCounts>,
): Promise<SyncSummary> {
  const streams = [...queued.keys()];
  const holds = new Map((await readHolds(d.redis, d.keys, streams)).streams.map((b) => [b.stream, b]));
  const perStream: SyncSummary['perStream'] = {};
  const failureQueues = { prefix: d.queues.prefix, redis: d.redis, get: (s: StreamName) => d.queues.get(s) };
  for (const stream of streams) {
    const q = queued.get(stream)!;
    const r = await readOutcomes(ledger, stream, d);
    const queue = d.queues.get(stream);
    const e = r.earlier;
    const earlierCompleted = e.synced + e.unchanged + e.skipped;
    const skippedWhy = { ...r.skippedWhy };
    for (const [why, n] of Object.entries(e.skippedWhy)) skippedWhy[why] = (skippedWhy[why] ?? 0) + n;
    const failed = [...r.failed, ...e.failed];
    const known = failed.filter((f) => !f.batch).length + r.failedBefore.length;
    const hold = holds.get(stream);
    const pausedWaiting = hold?.paused
      ? Object.values(await queue.getJobCounts('waiting', 'delayed', 'prioritized')).reduce((a, b) => a + b, 0)
      : 0;
    perStream[stream] = {
      queued: q.queued,
      duplicates: q.duplicates,
      invalid: q.invalid,
      records: r.records + earlierCompleted + e.failed.length,
      repeated: r.repeated,
      completed: r.synced + r.unchanged + r.skipped + earlierCompleted,
      synced: r.synced + e.synced,
      unchanged: r.unchanged + e.unchanged,
      skipped: r.skipped + e.skipped,
      skippedWhy,
      failed,
      syncedBefore: r.syncedBefore,
      failedBefore: r.failedBefore,
      waiting: r.waiting,
      missing: r.missing,
      untracked: r.untracked,
      earlier: { jobs: earlierCompleted + e.failed.length, completed: earlierCompleted, failed: e.failed.length },
      // Failed now: a failure a newer version of its record synced after (this run's, say) is history.
      otherFailed: Math.max(0, failedNowCount(await streamFailures(failureQueues, stream)) - known),
      ...(q.locked ? { locked: true } : {}),
      ...(hold?.paused ? { paused: { since: hold.since, reason: hold.reason, waiting: pausedWaiting } } : {}),
    };
  }
  return { perStream, ok: Object.values(perStream).every(streamOk), ms: Date.now() - ledger.startedAt };
}
