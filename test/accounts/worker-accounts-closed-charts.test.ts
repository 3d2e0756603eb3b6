import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { programKinds } from '../../jobs/kinds.js';
import { flowSamplesKey, readFlow } from '../../src/ops/flow-metrics.js';
import { ranMinutesKey } from '../../src/ops/flow-minutes.js';
import { openStreamQueues } from '../../src/queue/stream-queues.js';
import { redisKeys } from '../../src/redis/connection.js';
import { eventually } from '../cli/worker-process.js';
import { monitorOf } from '../helpers/redis.js';
import { accountsWorld, type AccountsWorld, type TestAccount } from './accounts-kit.js';

/**
 * Issue 56, an idle polled account's cost: between its turns no process samples its charts, unless its minute is not
 * "caught up, no requests". Two worker processes of one ACCOUNTS_FILE: calm's feeds answer (empty), down's answer 503
 * (its orders feed caught up 20 s before the workers start, its last poll failed since). The process that sweeps the
 * minute samples down's and marks the minute (`<QUEUE_PREFIX>~minutes`); calm's charts show that minute as caught up
 * with no requests, and the minutes before the workers ran as unknown. Every write of a sample or a mark is watched
 * (MONITOR): none twice in a minute, whichever process sweeps it.
 */
let world: AccountsWorld;
let calm: TestAccount;
let down: TestAccount;
let watcher: Redis;
let started: number;
const MINUTE = 60_000;
/** Each ZADD of a watched key: the key and the minute it wrote. */
const writes: string[] = [];

beforeAll(async () => {
  world = await accountsWorld('accounts-closed-charts');
  calm = await world.add('calm');
  down = await world.add('down');
  down.feed.setFaults({ status503Rate: 1 });
  const iso = (ago: number) => new Date(Date.now() - ago).toISOString();
  await world.redis.hset(redisKeys(down.prefix).feedState('orders'), {
    caughtUpAt: iso(20_000),
    lastPollAt: iso(2_000),
    lastError: 'feed answered 503',
  });
  world.writeFile(['calm', 'down']);
  const watched = new Set([flowSamplesKey(calm.prefix), flowSamplesKey(down.prefix), ranMinutesKey(world.base)]);
  watcher = await monitorOf(world.redis, (args) => {
    if (args[0]?.toLowerCase() === 'zadd' && watched.has(args[1]!)) writes.push(`${args[1]} ${args[2]}`);
  });
  started = Date.now();
  const workers = [world.startWorker(), world.startWorker()];
  await Promise.all(workers.map((w) => w.httpUrl));
});
afterAll(async () => {
  watcher?.disconnect();
  await world?.close();
});

describe('worker with ACCOUNTS_FILE: the charts of idle polled accounts', () => {
  it('samples only the account whose feed fails, and shows the others’ minute as caught up with no requests', async () => {
    await eventually(async () => (await world.redis.zcard(ranMinutesKey(world.base))) > 0, 20_000, 'a minute marked');
    const [marked] = await world.redis.zrange(ranMinutesKey(world.base), '0', '0');
    const minute = (JSON.parse(marked!) as { t: number }).t;
    expect(minute).toBeGreaterThanOrEqual(Math.floor(started / MINUTE) * MINUTE);

    // down's minute sampled, with its lag (since its last catch-up, 20 s before the workers started).
    const samples = await world.redis.zrangebyscore(flowSamplesKey(down.prefix), minute, minute);
    expect(samples).toHaveLength(1);
    expect((JSON.parse(samples[0]!) as { lag: { orders: number } }).lag.orders).toBeGreaterThanOrEqual(20);
    // calm's never: both processes are up, and its feed caught up.
    const caughtUp = () => world.redis.hget(redisKeys(calm.prefix).feedState('orders'), 'caughtUpAt');
    await eventually(async () => (await caughtUp()) !== null, 20_000, 'calm polled');
    expect(await world.redis.exists(flowSamplesKey(calm.prefix))).toBe(0);

    const queues = openStreamQueues(world.redis as never, calm.prefix, programKinds);
    try {
      const ranMinutes = [ranMinutesKey(world.base), ranMinutesKey(world.base, 'calm')];
      const flow = await readFlow(world.redis as never, calm.prefix, queues, { spanMinutes: 3, ranMinutes, now: minute + 30_000 });
      const at = (points: Array<[number, number | null]>, t: number) => points.find(([p]) => p === t)?.[1];
      expect(at(flow.streams.orders!.lag, minute)).toBe(0);
      expect(at(flow.budget.post.points, minute)).toBe(0);
      expect(at(flow.budget.get.points, minute)).toBe(0);
      // The minute before the workers ran: nobody marked it, nobody sampled it.
      expect(at(flow.streams.orders!.lag, minute - MINUTE)).toBeNull();
      expect(at(flow.budget.post.points, minute - MINUTE)).toBeNull();
    } finally {
      await queues.close();
    }
    // Each minute's sample and mark written once, though two processes run.
    expect(writes.length).toBeGreaterThanOrEqual(2);
    expect(new Set(writes).size).toBe(writes.length);
  });
});
