import type { Queue } from 'bullmq';
import { readFeedState } from '../feed/feed-state.js';
import { failedNowCount, streamFailures } from './failures-now.js';
import { readHolds } from '../queue/hold/hold-report.js';
import type { StreamQueues } from '../queue/stream-queues.js';
import { redisKeys } from '../redis/connection.js';

/** One stream of an account at a glance: its jobs, its hold and how far behind its feed is. */
export interface StreamSummary {
  stream: string;
  /** Waiting, delayed and prioritized: every job not yet taken. */
  waiting: number;
  active: number;
  failed: number;
  /** Completed jobs kept (synced, or left as they were: the words of `status`'s COMPLETED). */
  completed: number;
  /** Completed in the last hour (BullMQ's per-minute counts). */
  completedLastHour: number;
  /** The stream's hold for refusals (its breaker paused it): since when and why; null while it runs. */
  paused: { since: string | null; reason: string | null } | null;
  /** Seconds since the stream was last caught up; null when it never was. */
  behindSeconds: number | null;
  /** When its feed was last polled (ISO); null before the first pull. */
  lastPollAt: string | null;
}

/** An account at a glance, for the all-accounts page (a few reads per stream: no job is read, no failure grouped). */
export interface AccountSummary {
  account: string;
  prefix: string;
  streams: StreamSummary[];
  /** The hold for `outage` (the service down for every stream of the account): since when and why, while open. */
  outage: { since: string | null; reason: string | null } | null;
}

/** A time kept in Redis (ISO, or epoch ms as digits) in epoch ms; NaN when there is none. */
function msOf(v: string | undefined): number {
  if (!v) return NaN;
  return /^\d+$/.test(v) ? Number(v) : Date.parse(v);
}

/** Jobs of the queue completed in the 60 minutes before `now`, from BullMQ's per-minute counts (the charts' too). */
async function lastHourOf(queue: Pick<Queue, 'getMetrics'>, now: number): Promise<number> {
  const m = await queue.getMetrics('completed', 0, 60);
  if (!m.meta.prevTS) return 0;
  const open = Math.floor(m.meta.prevTS / 60_000) * 60_000;
  const from = Math.floor(now / 60_000) * 60_000 - 59 * 60_000;
  let n = open >= from ? m.meta.count - m.meta.prevCount : 0;
  m.data.forEach((v, i) => {
    if (open - (i + 1) * 60_000 >= from) n += v;
  });
  return n;
}

/** Reads one account's summary from its queues (its prefix's). */
export async function readAccountSummary(account: string, queues: StreamQueues, now = Date.now()): Promise<AccountSummary> {
  const keys = redisKeys(queues.prefix);
  const holds = await readHolds(queues.redis, keys, queues.names);
  const streams = await Promise.all(
    holds.streams.map(async (b): Promise<StreamSummary> => {
      const queue = queues.get(b.stream);
      const [c, feed, hour, failures] = await Promise.all([
        queue.getJobCounts('waiting', 'delayed', 'prioritized', 'active', 'completed'),
        readFeedState(queues.redis, keys, b.stream),
        lastHourOf(queue, now),
        streamFailures(queues, b.stream),
      ]);
      const caughtUp = msOf(feed.caughtUpAt);
      const polled = msOf(feed.lastPollAt);
      return {
        stream: b.stream,
        waiting: (c.waiting ?? 0) + (c.delayed ?? 0) + (c.prioritized ?? 0),
        active: c.active ?? 0,
        // Failed now, as status counts it: not a failure a newer version of its record superseded.
        failed: failedNowCount(failures),
        completed: c.completed ?? 0,
        completedLastHour: hour,
        paused: b.paused ? { since: b.since, reason: b.reason } : null,
        behindSeconds: Number.isNaN(caughtUp) ? null : Math.max(0, Math.round((now - caughtUp) / 1000)),
        lastPollAt: Number.isNaN(polled) ? null : new Date(polled).toISOString(),
      };
    }),
  );
  const o = holds.outage;
  return { account, prefix: queues.prefix, streams, outage: o.open ? { since: o.since, reason: o.reason } : null };
}
