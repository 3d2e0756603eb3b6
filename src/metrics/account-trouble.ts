import type { MetricObjectWithValues, MetricValue } from 'prom-client';

/** One account's series as its registry gives them (getMetricsAsJSON). */
export type AccountSeries = ReadonlyArray<MetricObjectWithValues<MetricValue<string>>>;

/**
 * Why an account's own series are shown in /metrics beside the deployment's totals (src/metrics/account-metrics.ts):
 * what the alerting rules of deploy/prometheus/rules/ fire on, read from the account's own series at the scrape.
 */
export type Trouble =
  | 'jobs-failing'
  | 'import-failed'
  | 'stream-paused'
  | 'account-refuses'
  | 'service-down'
  | 'call-held'
  | 'rate-limited'
  | 'redis-refusing'
  | 'feed-behind'
  | 'webhooks-missed';

/** A state the account is in now: the metric, the values (labels) it looks at, and past what the account is in trouble. */
const STATES: ReadonlyArray<{ trouble: Trouble; metric: string; over: number | 'lag'; where?: (l: Record<string, unknown>) => boolean }> = [
  { trouble: 'stream-paused', metric: 'isync_stream_paused', over: 0 },
  { trouble: 'account-refuses', metric: 'isync_breaker_refusals', over: 0 },
  { trouble: 'service-down', metric: 'isync_service_down', over: 0 },
  { trouble: 'call-held', metric: 'isync_call_held', over: 0 },
  { trouble: 'redis-refusing', metric: 'isync_redis_writes_refused_seconds', over: 0 },
  { trouble: 'import-failed', metric: 'isync_intake_batches', over: 0, where: (l) => l.state === 'failed' },
  { trouble: 'feed-behind', metric: 'isync_feed_lagging_seconds', over: 'lag' },
  // More than 5 an hour alerts (docs/shopify.md).
  { trouble: 'webhooks-missed', metric: 'isync_store_found_by_pull', over: 5 },
];

/** A count that rose since the last scrape: what happened between two scrapes (the rules' increase()). */
const RISES: ReadonlyArray<{ trouble: Trouble; metric: string; where?: (l: Record<string, unknown>) => boolean }> = [
  { trouble: 'jobs-failing', metric: 'isync_jobs_total', where: (l) => l.outcome === 'failed' },
  { trouble: 'rate-limited', metric: 'isync_rate_limited_total' },
  { trouble: 'call-held', metric: 'isync_call_holds_total' },
];

/** What is remembered of an account in trouble, or whose counts are not 0 (an idle account: nothing). */
interface Remembered {
  counts: Map<string, number>;
  /** Until when each reason keeps the account shown. */
  until: Map<Trouble, number>;
}

export interface TroubleOptions {
  /** The lag past which a feed is behind (ALERT_LAG_SECONDS). */
  lagSeconds: number;
  /** How long an account stays shown after its trouble ended: the longest window of the rules' increase() (1 h). */
  lingerMs: number;
  now?: () => number;
}

/** The sum of a metric's values (those `where` takes), and their largest. */
function read(series: AccountSeries, metric: string, where?: (l: Record<string, unknown>) => boolean) {
  let sum = 0;
  let max = -Infinity;
  for (const m of series) {
    if (m.name !== metric) continue;
    for (const v of m.values) {
      if (where && !where(v.labels)) continue;
      sum += v.value;
      max = Math.max(max, v.value);
    }
  }
  return { sum, max };
}

/**
 * Judges at each scrape which accounts are in trouble, from their own series: a state now (a paused stream, a held
 * call, the service down, Redis refusing writes, a failed import batch, a feed behind) or a count that rose (a job
 * failed for good, a 429, a call held) within `lingerMs`, so that an account's series do not come and go from one
 * scrape to the next and a rule's increase() over the last hour sees them.
 */
export function troubleWatch(o: TroubleOptions) {
  const now = o.now ?? Date.now;
  const remembered = new Map<string, Remembered>();
  let first = true;
  return {
    /** The account's reasons to be shown now (none: it is well). */
    judge(account: string, series: AccountSeries): Trouble[] {
      const at = now();
      let r = remembered.get(account);
      const mark = (t: Trouble) => {
        r ??= { counts: new Map(), until: new Map() };
        r.until.set(t, at + o.lingerMs);
      };
      for (const s of STATES) if (read(series, s.metric, s.where).max > (s.over === 'lag' ? o.lagSeconds : s.over)) mark(s.trouble);
      for (const s of RISES) {
        const { sum } = read(series, s.metric, s.where);
        // At the process's first scrape a count is where it starts from (a Redis-kept count has a past); later, from 0.
        const before = r?.counts.get(s.metric) ?? (first ? sum : 0);
        if (sum > before) mark(s.trouble);
        if (sum !== 0 || r) (r ??= { counts: new Map(), until: new Map() }).counts.set(s.metric, sum);
      }
      if (!r) return [];
      for (const [t, until] of r.until) if (until <= at) r.until.delete(t);
      remembered.set(account, r);
      return [...r.until.keys()].sort();
    },
    /** Called after each scrape with the accounts running: those gone are forgotten. */
    scraped(accounts: ReadonlySet<string>): void {
      first = false;
      for (const name of remembered.keys()) if (!accounts.has(name)) remembered.delete(name);
    },
  };
}

export type TroubleWatch = ReturnType<typeof troubleWatch>;
