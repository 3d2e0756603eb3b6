import type { Queue } from 'bullmq';
import type { RedisConnection as Redis } from '../redis/connection.js';
import { defaults } from '../../config/defaults.js';
import type { Budgets } from '../../config/read-config.js';
import { readFeedState } from '../feed/feed-state.js';
import { redisKeys } from '../redis/connection.js';
import type { StreamName } from '../records/stream-name.js';
import { readShares } from '../client/budget/share-status.js';
import { behindSeconds } from './feed-lag.js';

/**
 * The numbers behind the dashboard's live charts. Records synced and failed per minute are BullMQ's own job metrics
 * (every record worker keeps `defaults.flowKeepMinutes` one-minute counts per queue). Feed lag and budget use are
 * sampled into a sorted set of one sample a minute (`{prefix}:flow:samples`, trimmed to the same span) by `worker`
 * and by the dashboard while it is open.
 */

const MINUTE = 60_000;
const BUDGET_CLASSES = ['post', 'get', 'collection'] as const;
type BudgetClass = (typeof BUDGET_CLASSES)[number];

/** One minute's sample: the largest lag seen in it per stream, and the budget counters at its last look. */
interface FlowSample {
  t: number;
  lag: Partial<Record<StreamName, number>>;
  requests: Record<BudgetClass, number>;
  /** Each class's share of its configured budget at the last look (share.ts); absent in older samples. */
  shares?: Record<BudgetClass, number>;
}

export const flowSamplesKey = (prefix: string) => `${prefix}:flow:samples`;

const minuteOf = (ms: number) => Math.floor(ms / MINUTE) * MINUTE;

/** Records the current minute's sample (lag: the most seen in the minute). Safe from several processes at once. */
export async function sampleFlow(redis: Redis, prefix: string, streams: readonly StreamName[], now = Date.now()): Promise<void> {
  const keys = redisKeys(prefix);
  const t = minuteOf(now);
  const key = flowSamplesKey(prefix);
  const [states, stats, current, shared] = await Promise.all([
    Promise.all(streams.map((s) => readFeedState(redis, keys, s))),
    redis.hgetall(keys.budgetStats()),
    redis.zrangebyscore(key, t, t),
    readShares(redis, keys),
  ]);
  const before = current[0] ? (JSON.parse(current[0]) as FlowSample) : undefined;
  const lag: FlowSample['lag'] = {};
  for (const st of states) {
    const s = behindSeconds(st, now);
    if (s !== undefined) lag[st.stream] = Math.max(s, before?.lag[st.stream] ?? 0);
  }
  const requests = Object.fromEntries(BUDGET_CLASSES.map((c) => [c, Number(stats[`requests:${c}`] ?? 0)])) as FlowSample['requests'];
  const shares = Object.fromEntries(BUDGET_CLASSES.map((c) => [c, shared[c].factor])) as FlowSample['shares'];
  const sample: FlowSample = { t, lag, requests, shares };
  const text = JSON.stringify(sample);
  // The minute's sample as it is (an idle account's three looks out of four): nothing to write (issue 36).
  if (current[0] === text) return;
  await redis
    .multi()
    .zremrangebyscore(key, t, t)
    .zadd(key, t, text)
    .zremrangebyscore(key, '-inf', t - defaults.flowKeepMinutes * MINUTE)
    .pexpire(key, (defaults.flowKeepMinutes + 60) * MINUTE)
    .exec();
}

/** Per minute, the jobs BullMQ counted as finished there (its per-minute list, newest first, plus the open minute). */
async function perMinute(
  queue: Pick<Queue, 'getMetrics'>,
  type: 'completed' | 'failed',
  from: number,
  to: number,
): Promise<Map<number, number>> {
  const m = await queue.getMetrics(type, 0, Math.ceil((to - from) / MINUTE) + 1);
  const out = new Map<number, number>();
  if (!m.meta.prevTS) return out;
  const open = minuteOf(m.meta.prevTS);
  out.set(open, m.meta.count - m.meta.prevCount);
  m.data.forEach((n, i) => out.set(open - (i + 1) * MINUTE, n));
  return out;
}

export type Point = [t: number, value: number | null];

export interface FlowSeries {
  now: number;
  /** Minute starts covered, oldest first. */
  minutes: number[];
  streams: Record<StreamName, { synced: Point[]; failed: Point[]; lag: Point[] }>;
  /**
   * Per class: the configured budget, the requests sent each minute, and the rate the program allowed itself each
   * minute (configured × headroom × its share; lower while another client of the account spent the budget).
   */
  budget: Record<BudgetClass, { limitPerMinute: number | null; perMinute: Point[]; effectivePerMinute: Point[] }>;
  /** The lag over which `worker` alerts, for the charts' warning line. */
  lagLimitSeconds: number | null;
}

/** The last `span` minutes of every series, one point a minute (null where nothing was sampled). */
export async function readFlow(
  redis: Redis,
  prefix: string,
  queues: { names: readonly StreamName[]; get(stream: StreamName): Pick<Queue, 'getMetrics'> },
  o: { spanMinutes?: number; budgets?: Budgets; lagLimitSeconds?: number; now?: number } = {},
): Promise<FlowSeries> {
  const now = o.now ?? Date.now();
  const span = Math.min(o.spanMinutes ?? defaults.flowChartMinutes, defaults.flowKeepMinutes);
  const to = minuteOf(now);
  const from = to - (span - 1) * MINUTE;
  const minutes = Array.from({ length: span }, (_, i) => from + i * MINUTE);
  const raw = await redis.zrangebyscore(flowSamplesKey(prefix), from - MINUTE, to);
  const samples = new Map(raw.map((r) => JSON.parse(r) as FlowSample).map((s) => [s.t, s]));

  const streams = {} as FlowSeries['streams'];
  for (const stream of queues.names) {
    const q = queues.get(stream);
    const [done, failed] = await Promise.all([perMinute(q, 'completed', from, now), perMinute(q, 'failed', from, now)]);
    streams[stream] = {
      synced: minutes.map((t) => [t, done.get(t) ?? 0]),
      failed: minutes.map((t) => [t, failed.get(t) ?? 0]),
      lag: minutes.map((t) => [t, samples.get(t)?.lag[stream] ?? null]),
    };
  }
  const limits: Record<BudgetClass, number | null> = o.budgets
    ? { post: o.budgets.postPerMinute, get: o.budgets.getPerMinute, collection: o.budgets.collectionPerHour / 60 }
    : { post: null, get: null, collection: null };
  const budget = {} as FlowSeries['budget'];
  for (const cls of BUDGET_CLASSES) {
    budget[cls] = {
      limitPerMinute: limits[cls],
      perMinute: minutes.map((t) => {
        const cur = samples.get(t);
        const prev = samples.get(t - MINUTE);
        return [t, cur && prev ? Math.max(0, cur.requests[cls] - prev.requests[cls]) : null];
      }),
      effectivePerMinute: minutes.map((t) => {
        const limit = limits[cls];
        const share = samples.get(t)?.shares?.[cls];
        return [t, limit === null || share === undefined ? null : Math.round(limit * (o.budgets?.headroom ?? 1) * share * 10) / 10];
      }),
    };
  }
  return { now, minutes, streams, budget, lagLimitSeconds: o.lagLimitSeconds ?? null };
}

/** Samples every `everyMs` until stopped (the `worker` keeps the charts fed while no dashboard is open). One at a time. */
export function startFlowSampler(
  redis: Redis,
  prefix: string,
  streams: readonly StreamName[],
  everyMs: number,
  onError: (err: unknown) => void,
): { stop(): void } {
  let busy = false;
  const tick = () => {
    if (busy) return;
    busy = true;
    sampleFlow(redis, prefix, streams)
      .catch(onError)
      .finally(() => (busy = false));
  };
  tick();
  const timer = setInterval(tick, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
