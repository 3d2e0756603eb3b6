import { defaults } from '../../config/defaults.js';
import type { StreamName } from '../records/stream-name.js';
import type { RedisConnection as Redis } from '../redis/connection.js';

/**
 * The minutes a deployment of ACCOUNTS_FILE ran (issue 56): its sweep's process (src/queue/dispatch/sweep.ts) samples
 * the charts of the closed accounts whose minute is not "caught up, no requests" (in trouble, or a polled stream
 * behind) and marks the minute here, one write for the whole deployment; the other closed accounts are sampled by no
 * process. The charts (flow-metrics.ts readFlow) show an account's minute that was marked and not sampled as caught up
 * (lag 0 for its polled streams) with no requests; a minute not marked and not sampled stays unknown.
 * `<QUEUE_PREFIX>~minutes`, a sorted set of one member a minute (`{"t":…,"polled":[…]}`, scored by the minute's
 * start), kept as long as the samples; a `worker --account NAME` process marks its account's own,
 * `<QUEUE_PREFIX>~minutes~NAME`.
 */

const MINUTE = 60_000;

/** A marked minute: its start, and the streams whose lag is polled (their lag is 0 where not sampled). */
export interface RanMinute {
  t: number;
  polled: StreamName[];
}

/** The key of the minutes the deployment ran, or those of its one account's process (`worker --account NAME`). */
export const ranMinutesKey = (base: string, only?: string) => (only === undefined ? `${base}~minutes` : `${base}~minutes~${only}`);

/** The keys an account of ACCOUNTS_FILE's charts read its minutes from; none for a worker of one account. */
export const ranMinutesOf = (config: { accountName?: string; dispatch: { base: string } }): string[] | undefined =>
  config.accountName === undefined
    ? undefined
    : [ranMinutesKey(config.dispatch.base), ranMinutesKey(config.dispatch.base, config.accountName)];

/** Marks the minute of `now` as one the deployment ran (one MULTI), the marks older than the samples' span trimmed. */
export async function markMinute(redis: Redis, key: string, now: number, polled: readonly StreamName[]): Promise<void> {
  const t = Math.floor(now / MINUTE) * MINUTE;
  const mark: RanMinute = { t, polled: [...polled] };
  await redis
    .multi()
    .zremrangebyscore(key, t, t)
    .zadd(key, t, JSON.stringify(mark))
    .zremrangebyscore(key, '-inf', t - defaults.flowKeepMinutes * MINUTE)
    .pexpire(key, (defaults.flowKeepMinutes + 60) * MINUTE)
    .exec();
}

/** The minutes from `from` to `to` (minute starts) marked in any of `keys`. */
export async function readRanMinutes(redis: Redis, keys: readonly string[], from: number, to: number): Promise<Map<number, RanMinute>> {
  const out = new Map<number, RanMinute>();
  const lists = await Promise.all(keys.map((k) => redis.zrangebyscore(k, from, to)));
  for (const raw of lists.flat()) {
    const m = JSON.parse(raw) as RanMinute;
    out.set(m.t, m);
  }
  return out;
}
