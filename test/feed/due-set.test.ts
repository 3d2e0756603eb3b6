import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { startFeedServer, type FeedServer } from '../../src/feed/feed-server.js';
import { startControl, type Control } from '../../src/feed/control.js';
import { startDueLoop, type DueLoop } from '../../src/feed/due-loop.js';
import { dueKey } from '../../src/feed/due-set.js';
import { UpstreamClient } from '../../src/feed/upstream-client.js';
import { redisKeys } from '../../src/redis/connection.js';
import { startRedisServer, type RedisServer } from '../../src/redis/embedded-server.js';
import { STREAMS, programKinds } from '../../jobs/kinds.js';
import { kindOf } from '../../src/records/records.js';
import { queueWorld, sleep, type QueueWorld } from '../queue/support.js';
import { stockCountKind } from '../../jobs/stock/stock-count-kind.js';
import { feedControlOptions } from '../kit/control-options.js';
import { until } from '../kit/until.js';

/**
 * Issue 56, item 2: the next pull of every account and stream is one member of the deployment's due set, taken by
 * whichever process's loop is free (src/feed/due-set.ts, due-loop.ts). Here the accounts are many controls in this
 * process over one loop (as `worker` with ACCOUNTS_FILE runs them), each account with its own prefix.
 */
const orders = kindOf(programKinds, 'orders');
let w: QueueWorld;
let feed: FeedServer;

beforeEach(async () => {
  w = await queueWorld('due-set');
  feed = await startFeedServer({ names: STREAMS, token: 'feed-token' });
});
afterEach(async () => {
  await feed.close();
  await w.close();
});

/** A deployment's accounts on `redis`, all in one process's loop, each polling orders every `seconds`. */
async function deployment(redis: Redis, base: string, names: string[], seconds: number, due: DueLoop) {
  const client = new UpstreamClient({ url: feed.url, token: 'feed-token', retries: 0 });
  const pulls = new Map<string, number[]>();
  const controls: Control[] = [];
  for (const name of names) {
    const prefix = `${base}-${name}`;
    const upstream = {
      fetchPage: (stream: Parameters<UpstreamClient['fetchPage']>[0], o: Parameters<UpstreamClient['fetchPage']>[1]) => {
        pulls.set(name, [...(pulls.get(name) ?? []), Date.now()]);
        return client.fetchPage(stream, o);
      },
    };
    const schedule = { orderPollSeconds: seconds, bomPollSeconds: 3600, stockSyncCron: '0 19 * * *' };
    const keys = redisKeys(prefix);
    controls.push(
      await startControl({
        prefix,
        redis,
        keys,
        upstream,
        queues: w.queues,
        schedule,
        pageSize: 50,
        logger: w.logger,
        kinds: [orders],
        due,
        account: name,
      }),
    );
  }
  return { pulls, close: () => Promise.all(controls.map((c) => c.close(1_000))) };
}

const commandsProcessed = async (redis: Redis) => Number(/total_commands_processed:(\d+)/.exec(await redis.info('stats'))![1]);

describe('many accounts on one process', () => {
  let server: RedisServer;
  let redis: Redis;
  beforeAll(async () => {
    server = await startRedisServer();
    redis = new Redis(server.url);
  });
  afterAll(async () => {
    redis?.disconnect();
    await server?.stop();
  });

  /** Commands a second on the private Redis over `seconds`, less the measuring's own (two INFO). */
  async function commandsPerSecond(seconds: number): Promise<number> {
    const before = await commandsProcessed(redis);
    await sleep(seconds * 1000);
    return (await commandsProcessed(redis)) - before - 1;
  }

  async function idleCost(accounts: number): Promise<number> {
    const names = Array.from({ length: accounts }, (_, i) => `a${i}`);
    const due = startDueLoop({ redis, key: dueKey(`idle${accounts}`), logger: w.logger });
    // A day's interval: each account pulls once at start, then waits in the due set (a slot in the 4 s measured: 1%).
    const d = await deployment(redis, `idle${accounts}`, names, 86_400, due);
    // Settled: every first pull done, and every start's look for a missed run gone (nothing was owed).
    await until(async () => d.pulls.size === accounts && (await redis.zcard(dueKey(`idle${accounts}`))) === accounts, 20_000);
    await sleep(1_000);
    const perSecond = (await commandsPerSecond(4)) / 4;
    await d.close();
    await due.close(1_000);
    return perSecond;
  }

  it('costs a few Redis commands a second while idle, whether 20 accounts or 200', async () => {
    const twenty = await idleCost(20);
    const twoHundred = await idleCost(200);
    // One look at the due set a second (its claim script and the range it reads), whatever the accounts (the
    // per-account ticker took ~3 a second each).
    expect(twenty).toBeLessThan(4);
    expect(twoHundred).toBeLessThan(4);
    expect(twoHundred).toBeLessThan(twenty + 2);
  }, 60_000);

  it('polls each of 200 accounts at its interval', async () => {
    const names = Array.from({ length: 200 }, (_, i) => `p${i}`);
    const due = startDueLoop({ redis, key: dueKey('polled'), logger: w.logger });
    const d = await deployment(redis, 'polled', names, 5, due);
    await sleep(2_000);
    const from = Date.now();
    const ops = await commandsPerSecond(10);
    const counts = names.map((n) => d.pulls.get(n)!.filter((t) => t >= from && t < from + 10_000).length);
    await d.close();
    await due.close(1_000);
    // Two slots of 5 s in 10 s: each account pulled twice (one more or less at the edges), never more often.
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(1);
    expect(Math.max(...counts)).toBeLessThanOrEqual(3);
    expect(counts.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(200 * 2 * 0.9);
    // What an empty pull costs (about 6.3: its holds and cursor in one pipeline, the feed state's and the schedule's
    // write; its next slot written by the look that claimed it, its share of that look's read of the rules, and of the
    // looks), and no timer per account besides. Before the claim wrote the next slot (a lease, then the end): about
    // 7.2; before the empty poll was folded (issue 56): about 28.
    expect(ops / 10 / (200 / 5)).toBeLessThan(7);
  }, 60_000);
});

describe('two processes sharing the accounts', () => {
  it('runs each due pull once between them', async () => {
    const names = Array.from({ length: 10 }, (_, i) => `s${i}`);
    const [ra, rb] = [new Redis(w.url), new Redis(w.url)];
    const key = dueKey(w.prefix);
    // Each runs 5 pulls at once, and a pull takes 400 ms (the feed's latency): a look claims what the process has room
    // for (one script for them all), so while one process is full the other takes the rest. (With room for every
    // member and pulls that take no time, whichever looks first would take them all, as it should.)
    const loopOf = (redis: Redis) => startDueLoop({ redis, key, logger: w.logger, concurrency: 5, maxSleepMs: 200 });
    const [la, lb] = [loopOf(ra), loopOf(rb)];
    feed.setFaults({ latencyMs: 400 });
    try {
      const a = await deployment(ra, w.prefix, names, 1, la);
      const b = await deployment(rb, w.prefix, names, 1, lb);
      await sleep(6_000);
      await Promise.all([a.close(), b.close()]);
      for (const name of names) {
        const times = [...(a.pulls.get(name) ?? []), ...(b.pulls.get(name) ?? [])].sort((x, y) => x - y);
        // 6 s of 1 s slots (and the first pull at start): each once, by one process or the other.
        expect(times.length).toBeGreaterThanOrEqual(5);
        expect(times.length).toBeLessThanOrEqual(8);
        // Never twice in a slot (the first pull, at start, may come just before the first slot).
        const gaps = times.slice(2).map((t, i) => t - times[i + 1]!);
        expect(Math.min(...gaps)).toBeGreaterThan(300);
      }
      // Both took turns: whichever had room.
      expect([...a.pulls.values()].flat().length).toBeGreaterThan(0);
      expect([...b.pulls.values()].flat().length).toBeGreaterThan(0);
    } finally {
      feed.setFaults({});
      await Promise.all([la.close(0), lb.close(0)]);
      ra.disconnect();
      rb.disconnect();
    }
  }, 30_000);
});

describe('a process that dies mid-pull', () => {
  /** A cron that fires once a day, at the second of `at` (UTC): as `0 19 * * *` does. */
  const onceADayAt = (at: number) => {
    const d = new Date(at);
    return `${d.getUTCSeconds()} ${d.getUTCMinutes()} ${d.getUTCHours()} * * *`;
  };

  it('leaves its run to another process, which makes it up once its lease ends', async () => {
    const count = {
      countId: 'DIE-1',
      location: 'Main Warehouse / A-01',
      countDate: '2026-12-01',
      items: [{ productId: 'MUG-BLUE', quantity: 4 }],
    };
    feed.append('stock-counts', [count]);
    feed.setFaults({ latencyMs: 4_000 });
    const due = Date.now() + 2_000;
    const schedule = { stockSyncCron: onceADayAt(due), stockSyncTz: 'UTC' };
    // Each "process" with a connection of its own; a 2 s pull lock and lease stand for the 60 s ones.
    const [ra, rb] = [new Redis(w.url), new Redis(w.url)];
    const o = { ...feedControlOptions(w, feed), kinds: [stockCountKind], schedule, pullLockTtlMs: 2_000 };
    const a = await startControl({ ...o, redis: ra });
    let b: Control | undefined;
    try {
      await until(() => (feed.counters().requests['stock-counts'] ?? 0) === 1, 10_000);
      // Killed while the feed answers: its connection gone, it ends nothing, renews nothing, releases nothing.
      ra.disconnect();
      feed.setFaults({});
      b = await startControl({ ...o, redis: rb });
      await until(async () => (await b!.scheduleInfo())[0]?.madeUp !== undefined, 20_000);
      const info = (await b.scheduleInfo())[0]!;
      expect(info).toMatchObject({ lastOk: true, madeUp: { dueAt: due - (due % 1000), cause: 'stopped' } });
      await sleep(3_000);
      // Once more than the dead process's own fetch: the made-up pull; one job of the count (its id is the count's).
      expect(feed.counters().requests['stock-counts']).toBe(2);
      expect(await w.queues.get('stock-counts').getJobCounts('waiting')).toMatchObject({ waiting: 1 });
    } finally {
      await a.close(0);
      await b?.close(1_000);
      ra.disconnect();
      rb.disconnect();
    }
  }, 40_000);
});
