import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { programKinds } from '../../jobs/kinds.js';
import { flowSamplesKey, readFlow } from '../../src/ops/flow-metrics.js';
import { markMinute, ranMinutesKey } from '../../src/ops/flow-minutes.js';
import { openStreamQueues, type StreamQueues } from '../../src/queue/stream-queues.js';
import { redisKeys } from '../../src/redis/connection.js';
import { connect, deletePrefix, uniquePrefix } from '../helpers/redis.js';

/**
 * Issue 56: an account of ACCOUNTS_FILE is sampled in its turns; between them only when its minute is not "caught up,
 * no requests" (src/cli/commands/account-charts.ts). Its charts (readFlow) show a minute its deployment marked and it
 * was not sampled in as caught up (lag 0 for its polled streams) with no requests, and a minute nobody marked as
 * unknown, as before.
 */
let redis: Redis;
let base: string;
let prefix: string;
let queues: StreamQueues;
const MINUTE = 60_000;
const budgets = { postPerMinute: 100, getPerMinute: 200, collectionPerHour: 60, headroom: 0.8 };

beforeEach(() => {
  redis = connect();
  base = uniquePrefix('minutes');
  prefix = `${base}-acme`;
  queues = openStreamQueues(redis as never, prefix, programKinds);
});
afterEach(async () => {
  await queues.close();
  await deletePrefix(redis, prefix);
  await redis.del(ranMinutesKey(base), ranMinutesKey(base, 'acme'));
  await redis.quit();
});

/** A sample as a turn leaves it: the orders feed's lag, and the budget's counters (requests so far) and shares. */
function sample(t: number, ordersLag: number, post: number) {
  const requests = { post, get: 0, collection: 0 };
  return JSON.stringify({ t, lag: { orders: ordersLag }, requests, first: { requests }, shares: { post: 1, get: 1, collection: 1 } });
}

describe('the charts of an account between its turns', () => {
  it('show a minute the deployment ran and nobody sampled as caught up with no requests, one nobody marked as unknown', async () => {
    const now = Math.floor(Date.now() / MINUTE) * MINUTE + 30_000;
    const m = Math.floor(now / MINUTE) * MINUTE;
    const at = (i: number) => m - i * MINUTE;
    // A turn sampled minute -5 (12 s behind, 10 posts so far) and the current one (13 posts so far).
    await redis.zadd(flowSamplesKey(prefix), at(5), sample(at(5), 12, 10), m, sample(m, 2, 13));
    // The deployment ran minutes -4, -3 and -1 (the last as a `worker --account acme` process's); minute -2, nobody.
    for (const i of [4, 3]) await markMinute(redis as never, ranMinutesKey(base), at(i) + 5_000, ['orders', 'boms']);
    await markMinute(redis as never, ranMinutesKey(base, 'acme'), at(1) + 5_000, ['orders', 'boms']);
    const keys = redisKeys(prefix);
    await redis.hset(keys.feedState('orders'), { caughtUpAt: new Date(now - 4_000).toISOString() });
    // The daily stock count last caught up before any of these minutes; the BOM feed was never pulled.
    const counted = at(7) + 20_000;
    await redis.hset(keys.feedState('stock-counts'), { caughtUpAt: new Date(counted).toISOString() });

    const ran = [ranMinutesKey(base), ranMinutesKey(base, 'acme')];
    const flow = await readFlow(redis as never, prefix, queues, { spanMinutes: 6, budgets, now, ranMinutes: ran });
    expect(flow.minutes).toEqual([5, 4, 3, 2, 1, 0].map(at));
    const values = (points: Array<[number, number | null]>) => points.map(([, v]) => v);
    expect(values(flow.streams.orders!.lag)).toEqual([12, 0, 0, null, 0, 2]);
    // A stream not polled: the time since it last caught up (then as now), in each minute's end.
    const since = (i: number) => Math.round((at(i) + MINUTE - counted) / 1000);
    expect(values(flow.streams['stock-counts']!.lag)).toEqual([null, since(4), since(3), null, since(1), null]);
    expect(values(flow.streams.boms!.lag)).toEqual([null, null, null, null, null, null]);
    // The 3 posts of the current minute counted there (from the last sample), none in the marked minutes.
    expect(values(flow.budget.post.points)).toEqual([0, 0, 0, null, 0, 3]);
    // The share of the last sample before each marked minute: the configured rate × headroom.
    expect(values(flow.budget.post.effective)).toEqual([80, 80, 80, null, 80, 80]);

    // Without the deployment's keys (a worker of one account): the minutes not sampled are unknown, as before.
    const alone = await readFlow(redis as never, prefix, queues, { spanMinutes: 6, budgets, now });
    expect(values(alone.streams.orders!.lag)).toEqual([12, null, null, null, null, 2]);
    expect(values(alone.budget.post.points)).toEqual([0, null, null, null, null, 3]);
  });
});
