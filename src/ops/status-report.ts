import type { Budgets } from '../../config/read-config.js';
import { checkEvictionPolicy } from '../redis/eviction-policy.js';
import { type RedisConnection as Redis, redisKeys } from '../redis/connection.js';
import { readScheduleInfo } from '../feed/schedule-info.js';
import { readFeedState } from '../feed/feed-state.js';
import { foundInLastHour, isStoreCursor } from '../feed/store-found.js';
import type { StreamName } from '../records/stream-name.js';
import { budgetStatus, type BudgetStatus } from './budget-status.js';
import { failedGroups, type FailedGroup } from './failed-groups.js';
import { failedNowCount, streamFailures, type StreamFailures } from './failures-now.js';
import { intakeCounts, type IntakeCounts } from './intake-counts.js';
import type { StreamQueues } from '../queue/stream-queues.js';
import { readWorkers } from './worker-presence.js';
import { readHolds } from '../queue/hold/hold-report.js';
import type { EndedOutage, OutageState } from '../queue/hold/outage-state.js';
import type { BreakerState } from '../queue/hold/refusal-state.js';
import type { CallHoldState } from '../queue/hold/call-hold.js';
import { heldJobCounts } from '../queue/hold/call-held-jobs.js';
import { readWaits, type WaitReport } from '../queue/wait/wait-report.js';
import { CAUSE_TEXT, type MissedCause, type MissedRun } from '../feed/missed-runs.js';
import { shortDateTime } from '../time/date-format.js';

export type { BudgetStatus };

const COUNTED_STATES = ['waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized'] as const;

export interface StreamStatus {
  stream: StreamName;
  /** Jobs by state; `failed`: failed now, not those a newer version of their record superseded (`superseded`). */
  counts: Record<(typeof COUNTED_STATES)[number], number>;
  /**
   * Failed jobs a newer version of their record synced since (src/ops/failures-now.ts): history, not failures now;
   * not in `counts.failed`, the failure groups or `jobs retry --all-failed`.
   */
  superseded: number;
  /** Import batches on the stream's intake queue, not yet fanned out into record jobs (not in `counts`). */
  intake: IntakeCounts;
  /**
   * The stream's hold for refusals (the circuit breaker, src/queue/hold/): paused (no job runs, no pull) since when
   * and why, the jobs that wait for `inventory-sync resume`; otherwise the account refusals met in a row so far.
   */
  breaker: { paused: boolean; since: string | null; reason: string | null; code: string | null; refusals: number; waiting: number };
  feed: {
    cursor: string | null;
    /** Last time the feed was asked (ISO), when known. */
    lastPollAt: string | null;
    /** Last time the stream was caught up (hasMore false), when known. */
    caughtUpAt: string | null;
    /** Seconds since it was last caught up; null when it never was. */
    behindSeconds: number | null;
    recordsQueued: number;
    /** Re-delivered records (their job existed already). */
    duplicates: number;
    /** Records that did not match their shape (queued to fail at once). */
    invalid: number;
    /** The newest record seen (its business key). */
    newestRecord: string | null;
    /** The latest pull's failure, while it is the latest news. */
    lastError: { message: string; at: string | null } | null;
    /**
     * A store as the source, beside its webhooks: order changes its pull found in the last hour that no webhook had
     * brought (src/feed/store-found.ts); null when the stream is not read from a store.
     */
    foundByPull: number | null;
  };
}

export interface ScheduleStatus {
  /** Scheduler id: poll-orders, poll-boms, stock-sync. */
  name: string;
  stream: string | null;
  /** "every 5 s" or the cron pattern (with its zone). */
  rule: string | null;
  lastRunAt: string | null;
  nextRunAt: string | null;
  /** Whether the last run fetched (a run held by a pause or an outage did not); null before the first run. */
  lastOk: boolean | null;
  lastError: string | null;
  /** A slot a run served without fetching (held, failed), while no pull has covered it: made up when its cause ends. */
  missed: { dueAt: string; cause: MissedCause } | null;
  /**
   * The last run that made up a missed slot: the slot, when it ran, why the slot was missed, and in words ("the
   * 2026-12-01 19:00 UTC run made up at 19:07 UTC after an outage of the service").
   */
  madeUp: { dueAt: string; at: string; cause: MissedCause; text: string } | null;
  /** The last missed slot older than the catch-up window (SCHEDULE_CATCH_UP_SECONDS), not made up, in words too. */
  notMadeUp: { dueAt: string; cause: MissedCause; text: string } | null;
}

/** A named call's hold, with the jobs that wait at it by stream (none while it runs). */
export type CallStatus = CallHoldState & { waiting: Record<string, number> };

/** What `status` prints and the dashboard's overview shows. */
export interface StatusReport {
  prefix: string;
  at: string;
  /** Redis's maxmemory-policy, and the warning when it is not noeviction (or could not be read). */
  redis: { maxmemoryPolicy: string | null; warning: string | null };
  streams: StreamStatus[];
  budget: BudgetStatus[];
  schedule: ScheduleStatus[];
  failedGroups: FailedGroup[];
  /**
   * The hold for `outage`, the service down for everything (src/queue/hold/): while `open`, every stream holds (no job
   * runs, none is pulled, none spends an attempt) and one read probes the service; `waiting` jobs wait for it. `last`:
   * the last outage that ended (within 30 days).
   */
  outage: OutageState & { waiting: number; last: EndedOutage | null };
  /**
   * Each named call of the service (src/queue/hold/call-hold.ts): while `held`, the jobs whose next step is it wait there
   * (`waiting`, by stream) and one real request of it is tried at growing intervals; every other call and stream runs.
   */
  calls: CallStatus[];
  /**
   * The records that wait for a product or facility the service lacks (src/queue/wait/), grouped by stream and what they
   * wait for, the oldest first (at most 50 groups; `more` counts the rest): no attempt spent, each goes on by itself.
   */
  waits: WaitReport;
  /** The workers running now (each says so every 20 s): how many, how many pull the feed, where pushes are taken. */
  workers: { running: number; pulling: number; receivers: string[] };
}

function toIso(v: string | undefined): string | null {
  if (!v) return null;
  const n = Number(v);
  const d = Number.isFinite(n) && /^\d+$/.test(v) ? new Date(n) : new Date(v);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

async function streamStatus(
  redis: Redis,
  queues: StreamQueues,
  breaker: BreakerState,
  failures: StreamFailures,
  now: number,
): Promise<StreamStatus> {
  const stream = breaker.stream;
  const keys = redisKeys(queues.prefix);
  const [raw, intake, feed, found] = await Promise.all([
    queues.get(stream).getJobCounts(...COUNTED_STATES),
    intakeCounts(queues, stream),
    readFeedState(redis, keys, stream),
    foundInLastHour(redis, keys, stream, now),
  ]);
  const counts = Object.fromEntries(COUNTED_STATES.map((s) => [s, raw[s] ?? 0])) as StreamStatus['counts'];
  // Failed now: BullMQ's failed set less the failures a newer version superseded (read with the groups, once).
  counts.failed = failedNowCount({ ...failures, total: counts.failed });
  const { paused, since, reason, code, refusals } = breaker;
  const caughtUpAt = toIso(feed.caughtUpAt);
  return {
    stream,
    counts,
    superseded: failures.superseded.length,
    intake,
    breaker: { paused, since, reason, code, refusals, waiting: counts.waiting + counts.delayed + counts.prioritized },
    feed: {
      cursor: feed.cursor ?? null,
      lastPollAt: toIso(feed.lastPollAt),
      caughtUpAt,
      behindSeconds: caughtUpAt ? Math.max(0, Math.round((now - Date.parse(caughtUpAt)) / 1000)) : null,
      recordsQueued: feed.recordsQueued,
      duplicates: feed.duplicates,
      invalid: feed.invalid,
      newestRecord: feed.newestRecord ?? null,
      lastError: feed.lastError ? { message: feed.lastError, at: toIso(feed.lastErrorAt) } : null,
      foundByPull: found > 0 || isStoreCursor(feed.cursor) ? found : null,
    },
  };
}

const isoOf = (ms: number) => new Date(ms).toISOString();
const utc = (ms: number) => `${shortDateTime(isoOf(ms)).slice(0, 16)} UTC`;

/** "the 2026-12-01 19:00 UTC run made up at 2026-12-01 19:07 UTC after an outage of the service". */
function madeUpText(m: MissedRun & { at: number }): string {
  return `the ${utc(m.dueAt)} run made up at ${utc(m.at)} after ${CAUSE_TEXT[m.cause]}`;
}

function notMadeUpText(m: MissedRun): string {
  return `the ${utc(m.dueAt)} run was missed (${CAUSE_TEXT[m.cause]}) and not made up: older than SCHEDULE_CATCH_UP_SECONDS`;
}

async function scheduleStatus(redis: Redis, prefix: string, kinds: StreamQueues['kinds']): Promise<ScheduleStatus[]> {
  const infos = await readScheduleInfo(redis, redisKeys(prefix), kinds);
  return infos.map((i) => ({
    name: i.scheduler,
    stream: i.stream ?? null,
    rule: i.every ? `every ${i.every / 1000} s` : i.pattern ? `${i.pattern}${i.tz ? ` (${i.tz})` : ''}` : null,
    lastRunAt: toIso(i.lastRunAt),
    nextRunAt: toIso(i.nextRunAt),
    lastOk: i.lastOk ?? null,
    lastError: i.lastError ?? null,
    missed: i.missed && (i.fetchedAt ?? 0) < i.missed.dueAt ? { dueAt: isoOf(i.missed.dueAt), cause: i.missed.cause } : null,
    madeUp: i.madeUp ? { dueAt: isoOf(i.madeUp.dueAt), at: isoOf(i.madeUp.at), cause: i.madeUp.cause, text: madeUpText(i.madeUp) } : null,
    notMadeUp: i.notMadeUp ? { dueAt: isoOf(i.notMadeUp.dueAt), cause: i.notMadeUp.cause, text: notMadeUpText(i.notMadeUp) } : null,
  }));
}

/** Reads queue counts (import batches too), feed cursors, budget use, schedules and failure groups of one prefix. */
export async function readStatus(
  redis: Redis,
  queues: StreamQueues,
  o: { budgets?: Budgets; now?: number; deploymentWorkers?: string } = {},
): Promise<StatusReport> {
  const now = o.now ?? Date.now();
  const keys = redisKeys(queues.prefix);
  // Every hold, read once: each stream's refusals, the outage and the last one that ended.
  const holds = await readHolds(redis, keys, queues.names, { lastOutage: true });
  // Failed now and superseded, per stream: the counts and the failure groups read the same answer.
  const failures = new Map(await Promise.all(queues.names.map(async (s) => [s, await streamFailures(queues, s)] as const)));
  const [streams, budget, schedule, groups, eviction, running, calls, waits] = await Promise.all([
    Promise.all(holds.streams.map((b) => streamStatus(redis, queues, b, failures.get(b.stream)!, now))),
    budgetStatus(redis, queues.prefix, o.budgets, now),
    scheduleStatus(redis, queues.prefix, queues.kinds),
    failedGroups(queues, undefined, failures),
    checkEvictionPolicy(redis),
    readWorkers(redis, keys, now, o.deploymentWorkers),
    Promise.all(holds.calls.map(async (c) => ({ ...c, waiting: c.held ? await heldJobCounts(redis, keys, c.call, queues.names) : {} }))),
    readWaits(redis, keys),
  ]);
  const { outage, lastOutage: last } = holds;
  const redisInfo = { maxmemoryPolicy: eviction.policy, warning: eviction.warning };
  const waiting = outage.open ? streams.reduce((n, st) => n + st.counts.waiting + st.counts.delayed + st.counts.prioritized, 0) : 0;
  return {
    prefix: queues.prefix,
    at: new Date(now).toISOString(),
    redis: redisInfo,
    streams,
    budget,
    schedule,
    failedGroups: groups,
    outage: { ...outage, waiting, last: last ?? null },
    calls,
    waits,
    workers: {
      running: running.length,
      pulling: running.filter((w) => w.pulls).length,
      receivers: [...new Set(running.flatMap((w) => (w.ingest ? [w.ingest] : [])))],
    },
  };
}
