import { storeKind } from './feed-sources.js';
import { foundInLastHour } from '../feed/store-found.js';
import { laneLimits } from '../client/budget/budget-lanes.js';
import { readShares } from '../client/budget/share-status.js';
import { readFeedState } from '../feed/feed-state.js';
import type { ScrapeSources } from '../metrics/metrics.js';
import { intakeCounts } from '../ops/intake-counts.js';
import { readHolds } from '../queue/hold/hold-report.js';
import type { AppDeps } from './build-deps.js';
import { readRedisMemory } from '../redis/memory-info.js';
import { laggingSeconds } from '../ops/feed-lag.js';
import { readWaitGroups, waitingCounts } from '../queue/wait/wait-store.js';

/** The last read of Redis's memory per connection: the accounts of one process share one, and one INFO serves a scrape. */
const memoryReads = new WeakMap<AppDeps['redis'], { at: number; read: ReturnType<typeof readRedisMemory> }>();

function sharedMemoryRead(redis: AppDeps['redis']): ReturnType<typeof readRedisMemory> {
  const last = memoryReads.get(redis);
  if (last && Date.now() - last.at <= 500) return last.read;
  const read = readRedisMemory(redis);
  memoryReads.set(redis, { at: Date.now(), read });
  return read;
}

/** What a metrics scrape reads, of the streams of the parts' kinds (an open account's, or a closed one's queues alone). */
export function metricSources(d: Pick<AppDeps, 'redis' | 'keys' | 'queues' | 'config' | 'kinds'>): ScrapeSources {
  const { redis, keys, queues, config } = d;
  // One read of the feeds' states serves both feed gauges of a scrape (prom-client collects them one after the other).
  let feedRead: { at: number; states: Promise<Array<Awaited<ReturnType<typeof readFeedState>>>> } | undefined;
  const feedStates = () => {
    if (!feedRead || Date.now() - feedRead.at > 500)
      feedRead = { at: Date.now(), states: Promise.all(d.kinds.map((k) => readFeedState(redis, keys, k.stream))) };
    return feedRead.states;
  };
  return {
    async queueCounts() {
      const out: Array<{ stream: string; state: string; count: number }> = [];
      for (const stream of queues.streams()) {
        const counts = await queues.get(stream).getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized');
        for (const [state, count] of Object.entries(counts)) out.push({ stream, state, count });
      }
      return out;
    },
    async intakeCounts() {
      const out: Array<{ stream: string; state: string; count: number }> = [];
      for (const stream of queues.streams()) {
        for (const [state, count] of Object.entries(await intakeCounts(queues, stream))) out.push({ stream, state, count });
      }
      return out;
    },
    holds: () => readHolds(redis, keys, queues.streams()),
    redisMemory: () => sharedMemoryRead(redis),
    async waits() {
      const [counts, groups] = await Promise.all([waitingCounts(redis, keys, queues.streams()), readWaitGroups(redis, keys)]);
      const oldest = groups.reduce((min, g) => Math.min(min, g.since), Date.now());
      return { counts, groups: groups.length, oldestSeconds: Math.max(0, (Date.now() - oldest) / 1000) };
    },
    async budgetShares() {
      const budgets = config.service?.budgets;
      if (!budgets) return [];
      const shares = await readShares(redis, keys);
      return Object.entries(laneLimits(budgets)).map(([lane, l]) => {
        const perMinute = (l.limit * 60_000) / l.windowMs;
        const share = shares[lane as keyof typeof shares];
        return {
          lane,
          configuredPerMinute: perMinute,
          effectivePerMinute: perMinute * budgets.headroom * share.factor,
          reason: share.reason,
        };
      });
    },
    async feedLagging() {
      const now = Date.now();
      const states = await feedStates();
      return d.kinds.flatMap((k, i) => {
        const s = laggingSeconds(states[i]!, now, k.feed.lag);
        return s === undefined ? [] : [{ stream: k.stream, seconds: s }];
      });
    },
    async feedLag() {
      const now = Date.now();
      const states = await feedStates();
      return states
        .filter((s) => s.caughtUpAt)
        .map((s) => ({ stream: s.stream, seconds: Math.max(0, (now - Date.parse(s.caughtUpAt!)) / 1000) }));
    },
    async foundByPull() {
      const store = storeKind(config, d.kinds);
      return store ? [{ stream: store.stream, count: await foundInLastHour(redis, keys, store.stream) }] : [];
    },
  };
}
