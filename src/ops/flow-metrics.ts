import type { Queue } from 'bullmq';
import type { RedisConnection as Redis } from '../redis/connection.js';
import { defaults } from '../../config/defaults.js';
import type { Budgets } from '../../config/read-config.js';
import { readFeedState, type FeedState } from '../feed/feed-state.js';
import { readRanMinutes, type RanMinute } from './flow-minutes.js';
import { redisKeys } from '../redis/connection.js';
import type { StreamName } from '../records/stream-name.js';
import { readShares } from '../client/budget/share-status.js';
import { behindSeconds } from './feed-lag.js';
import { readWorkers } from './worker-presence.js';
import type { StreamQueues } from '../queue/stream-queues.js';
import { failedNowCount, streamFailures } from './failures-now.js';
import { BUDGET_CLASSES, budgetSeries, type BudgetClass, type BudgetSeries, type Point } from './flow-budget.js';

export type { BudgetSeries, Point };

/**
 * The numbers behind the dashboard's live charts. Records synced and failed per minute are BullMQ's own job metrics
 * (every record worker keeps `defaults.flowKeepMinutes` one-minute counts per queue). Feed lag and budget use are
 * sampled into a sorted set of one sample a minute (`{prefix}:flow:samples`, trimmed to the same span) by `worker`,
 * by `dashboard` while it runs, and by `sync --once` and `import --process` while they run (at their start and end
 * too): the budget's charts and its table are read from these samples alike, so they always agree. An account of
 * ACCOUNTS_FILE is sampled in its turns; between them only when its minute is not "caught up, no requests", its other
 * minutes told by the deployment's mark (flow-minutes.ts).
 */

const MINUTE = 60_000;

/** One minute's sample: the largest lag seen in it per stream, and the budget counters at its last look. */
interface FlowSample {
  t: number;
  lag: Partial<Record<StreamName, number>>;
  /** The budget's counters as every process left them: requests, ms waited for budget and 429 holds per class. */
  requests: Record<BudgetClass, number>;
  waitedMs?: Record<BudgetClass, number>;
  holds?: Record<BudgetClass, number>;
  /** The same counters at the minute's first look: what its own requests are counted from when no minute before was sampled. */
  first?: Pick<FlowSample, 'requests' | 'waitedMs' | 'holds'>;
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
  // Only what the lag is read from (when each feed was last caught up): one command a stream.
  const [states, stats, current, shared] = await Promise.all([
    Promise.all(
      streams.map(async (stream) => ({ stream, caughtUpAt: (await redis.hget(keys.feedState(stream), 'caughtUpAt')) ?? undefined })),
    ),
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
  const counter = (name: string) => Object.fromEntries(BUDGET_CLASSES.map((c) => [c, Number(stats[`${name}:${c}`] ?? 0)]));
  const shares = Object.fromEntries(BUDGET_CLASSES.map((c) => [c, shared[c].factor])) as FlowSample['shares'];
  const counters = {
    requests: counter('requests') as FlowSample['requests'],
    waitedMs: counter('waitedMs') as FlowSample['requests'],
    holds: counter('holds') as FlowSample['requests'],
  };
  const sample: FlowSample = { t, lag, ...counters, first: before?.first ?? counters, shares };
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

export interface FlowSeries {
  now: number;
  /** Minute starts covered, oldest first. */
  minutes: number[];
  /**
   * Per stream, its records and lag each minute, and its feed now (the words of `status`: src/ops/state-words.ts).
   * `failed` counts failures as they happened (a job retried to success since, or superseded, stays counted there);
   * `failedNow` is the jobs failed now, as `status` counts them (src/ops/failures-now.ts).
   */
  streams: Record<
    StreamName,
    {
      synced: Point[];
      failed: Point[];
      failedNow: number;
      lag: Point[];
      feed: { behindSeconds: number | null; lastPollAt: string | null };
    }
  >;
  /**
   * Per class, in the unit of its budget: the requests each minute (an hour's for collection), the budget, the last
   * hour (flow-budget.ts).
   */
  budget: Record<BudgetClass, BudgetSeries>;
  /** The lag over which `worker` alerts, for the charts' warning line. */
  lagLimitSeconds: number | null;
}

/**
 * The last `span` minutes of every series, one point a minute (null where nothing was sampled). `failedNow`: each
 * stream's jobs failed now when the caller read them already (the overview, from its status), else read here.
 */
export async function readFlow(
  redis: Redis,
  prefix: string,
  queues: StreamQueues,
  o: {
    spanMinutes?: number;
    budgets?: Budgets;
    lagLimitSeconds?: number;
    now?: number;
    failedNow?: Readonly<Partial<Record<StreamName, number>>>;
    /** An account of ACCOUNTS_FILE: the keys of the minutes its deployment ran (flow-minutes.ts ranMinutesOf). */
    ranMinutes?: readonly string[];
  } = {},
): Promise<FlowSeries> {
  const now = o.now ?? Date.now();
  const span = Math.min(o.spanMinutes ?? defaults.flowChartMinutes, defaults.flowKeepMinutes);
  const to = minuteOf(now);
  const from = to - (span - 1) * MINUTE;
  const minutes = Array.from({ length: span }, (_, i) => from + i * MINUTE);
  // An hour more than the span: the collection chart's first points are the hour before them.
  const [raw, ran] = await Promise.all([
    redis.zrangebyscore(flowSamplesKey(prefix), from - 61 * MINUTE, to),
    readRanMinutes(redis, o.ranMinutes ?? [], from - 61 * MINUTE, to),
  ]);
  const samples = new Map(raw.map((r) => JSON.parse(r) as FlowSample).map((s) => [s.t, s]));

  const streams = {} as FlowSeries['streams'];
  for (const stream of queues.names) {
    const q = queues.get(stream);
    const known = o.failedNow?.[stream];
    const [done, failed, state, failedNow] = await Promise.all([
      perMinute(q, 'completed', from, now),
      perMinute(q, 'failed', from, now),
      readFeedState(redis, redisKeys(prefix), stream),
      known ?? streamFailures(queues, stream).then(failedNowCount),
    ]);
    streams[stream] = {
      synced: minutes.map((t) => [t, done.get(t) ?? 0]),
      failed: minutes.map((t) => [t, failed.get(t) ?? 0]),
      failedNow,
      lag: minutes.map((t) => [t, samples.get(t)?.lag[stream] ?? quietLag(ran.get(t), state, t, now)]),
      feed: { behindSeconds: behindSeconds(state, now) ?? null, lastPollAt: state.lastPollAt ?? null },
    };
  }
  const budget = budgetSeries(samples, minutes, o.budgets, new Set(ran.keys()));
  return { now, minutes, streams, budget, lagLimitSeconds: o.lagLimitSeconds ?? null };
}

/**
 * A stream's lag in a minute its account was not sampled: unknown (null) unless the deployment ran then (`ran`); then
 * 0 for a polled stream that has caught up (the sweep samples one behind), and for another (a daily pull) the time
 * since it last caught up when that was before the minute (not since: it was the same then).
 */
function quietLag(ran: RanMinute | undefined, state: FeedState, t: number, now: number): number | null {
  if (!ran || !state.caughtUpAt) return null;
  if (ran.polled.includes(state.stream)) return 0;
  const caughtUp = Date.parse(state.caughtUpAt);
  return caughtUp <= t ? Math.round((Math.min(t + MINUTE, now) - caughtUp) / 1000) : null;
}

/**
 * Samples every `everyMs` until stopped, one at a time, at once too: `worker` keeps the charts fed; `sync --once` and
 * `import --process` while they run; `dashboard` with `unlessWorker`, only while no worker of the prefix runs (one
 * does it then). With `lastSample`, `stop` takes one more (within 2 s), so a run's last requests are counted in its
 * last minute.
 */
export function startFlowSampler(
  redis: Redis,
  prefix: string,
  streams: readonly StreamName[],
  everyMs: number,
  onError: (err: unknown) => void,
  o: { unlessWorker?: boolean; deploymentWorkers?: string; lastSample?: boolean } = {},
): { stop(): Promise<void> } {
  let busy: Promise<void> | undefined;
  const look = async () => {
    if (o.unlessWorker && (await readWorkers(redis, redisKeys(prefix), Date.now(), o.deploymentWorkers)).length > 0) return;
    await sampleFlow(redis, prefix, streams);
  };
  const tick = () => {
    busy ??= look()
      .catch(onError)
      .finally(() => (busy = undefined));
  };
  tick();
  const timer = setInterval(tick, everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      if (!o.lastSample) return;
      // Never longer than this: a Redis gone at the end must not hold the command's exit.
      let timeout: NodeJS.Timeout | undefined;
      const last = (busy ?? Promise.resolve()).then(() => sampleFlow(redis, prefix, streams)).catch(onError);
      await Promise.race([last, new Promise<void>((r) => (timeout = setTimeout(r, 2000)))]);
      clearTimeout(timeout);
    },
  };
}
