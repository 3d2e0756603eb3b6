import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { startFeedServer, type FeedServer } from '../../src/feed/feed-server.js';
import { readFeedState } from '../../src/feed/feed-state.js';
import { readScheduleInfo } from '../../src/feed/schedule-info.js';
import { runScheduledPull, type ScheduledPullDeps } from '../../src/feed/scheduled-pull.js';
import { startDueLoop } from '../../src/feed/due-loop.js';
import { UpstreamClient } from '../../src/feed/upstream-client.js';
import { createQueues } from '../../src/queue/queues.js';
import { redisKeys } from '../../src/redis/connection.js';
import { startRedisServer, type RedisServer } from '../../src/redis/embedded-server.js';
import { STREAMS, programKinds } from '../../jobs/kinds.js';
import { kindOf } from '../../src/records/records.js';
import { captureLogger, order, sleep } from '../queue/support.js';
import { until } from '../kit/until.js';

/**
 * Issue 56: an idle polled account's Redis commands are its polls'. The commands of one empty scheduled pull and of
 * the due set's claim and end of a member, counted on a private redis-server (INFO's total, a script's own commands
 * included): a count, not a timing. The bounds are the design's (src/feed/producer.ts `lookFirst`, due-set.ts).
 */
let server: RedisServer;
let redis: Redis;
let feed: FeedServer;

beforeAll(async () => {
  server = await startRedisServer();
  redis = new Redis(server.url);
  feed = await startFeedServer({ names: STREAMS, token: 'feed-token' });
});
afterAll(async () => {
  redis?.disconnect();
  await feed?.close();
  await server?.stop();
});

const total = async () => Number(/total_commands_processed:(\d+)/.exec(await redis.info('stats'))![1]);

/** The commands `fn` sent, less the counting's own (the INFO after it). */
async function commandsOf(fn: () => Promise<unknown>): Promise<number> {
  const before = await total();
  await fn();
  return (await total()) - before - 1;
}

function pullDeps(prefix: string, from = feed): ScheduledPullDeps & { close(): Promise<void> } {
  const keys = redisKeys(prefix);
  const logger = captureLogger().logger;
  const queues = createQueues({ connection: redis, prefix, jobs: { attempts: 3 }, streams: ['orders'] });
  return {
    redis,
    keys,
    upstream: new UpstreamClient({ url: from.url, token: 'feed-token', retries: 0 }),
    queues,
    pageSize: 50,
    logger,
    kinds: [kindOf(programKinds, 'orders')],
    close: () => queues.close(),
  };
}

const run = (at: number) => ({
  scheduler: 'order-poll',
  stream: 'orders' as const,
  dueAt: at,
  nextRunAt: async () => new Date(at + 10_000),
});

describe('an empty scheduled pull', () => {
  it('costs 2 Redis commands: the cursor read, the feed state written once (the run recorded there)', async () => {
    const d = pullDeps('poll-count');
    try {
      // A first pull with a record: the cursor is stored, then the feed has nothing new.
      feed.append('orders', [order('WEB-1')]);
      expect(await runScheduledPull(d, run(Date.now()))).toMatchObject({ queued: 1 });
      const before = await readFeedState(redis, d.keys, 'orders');
      const n = await commandsOf(() => runScheduledPull(d, run(Date.now())));
      // The cursor: 1; the poll's time in the feed state, which is its run's record too: 1. No read of the holds (no
      // record to hold), no lock (no page to queue), no page counted, nothing deleted, no write of the schedule hash.
      expect(n).toBe(2);
      const after = await readFeedState(redis, d.keys, 'orders');
      expect(after).toMatchObject({ pages: before.pages, recordsQueued: 1, lastPageSize: 0, lastError: undefined });
      expect(after.caughtUpAt! >= before.caughtUpAt!).toBe(true);
    } finally {
      await d.close();
    }
  });

  it('opens no queue while the feed has nothing: not at its first pull (no cursor yet), nor after', async () => {
    const empty = await startFeedServer({ names: STREAMS, token: 'feed-token' });
    const d = pullDeps('poll-no-queue', empty);
    try {
      await runScheduledPull(d, run(Date.now()));
      await runScheduledPull(d, run(Date.now()));
      // BullMQ writes a queue's meta when it opens it: none, and the sweep's look at the account stays one EXISTS.
      expect(await redis.exists(`poll-no-queue:orders:meta`)).toBe(0);
      expect(await redis.get(d.keys.cursor('orders'))).toBeTruthy();
    } finally {
      await d.close();
      await empty.close();
    }
  });

  it('clears a failed pull left in the feed state and the schedule, in its one write', async () => {
    const d = pullDeps('poll-clear');
    const scheduled = [{ stream: 'orders', feed: { scheduler: 'order-poll' } }];
    try {
      await redis.hset(d.keys.schedule(), 'order-poll.every', '10');
      // Its cursor stored by a first pull; then one that fails.
      await runScheduledPull(d, run(Date.now() - 2));
      feed.setFaults({ status503Times: 1 });
      await expect(runScheduledPull(d, run(Date.now() - 1))).rejects.toThrow();
      expect((await readFeedState(redis, d.keys, 'orders')).lastError).toBeTruthy();
      expect((await readScheduleInfo(redis, d.keys, scheduled))[0]).toMatchObject({ lastOk: false, missed: { cause: 'failed' } });
      const n = await commandsOf(() => runScheduledPull(d, run(Date.now())));
      expect(n).toBe(2);
      expect((await readFeedState(redis, d.keys, 'orders')).lastError).toBeUndefined();
      // The schedule hash keeps the failed run; the quiet poll after it, newer, is the last run as status reads it.
      expect(await redis.hget(d.keys.schedule(), 'order-poll.lastOk')).toBe('0');
      const [info] = await readScheduleInfo(redis, d.keys, scheduled);
      expect(info).toMatchObject({ lastOk: true, lastResult: { queued: 0, caughtUp: true } });
      expect(info!.lastError).toBeUndefined();
      expect(info!.missed).toBeUndefined();
      expect(info!.fetchedAt).toBeGreaterThan(Date.parse((await redis.hget(d.keys.schedule(), 'order-poll.lastRunAt'))!));
    } finally {
      await d.close();
    }
  });
});

describe("the due set's claim", () => {
  it('claims 100 due members in one look; an interval member needs no end, a cron member one command', async () => {
    const key = 'claim-count:due';
    const now = Date.now();
    const members = Array.from({ length: 100 }, (_, i) => `a${i}/${i % 2 ? 'orders' : 'stock-counts'}`);
    await redis.zadd(key, ...members.flatMap((m) => [now - 1000, m]));
    // Half poll every hour, half run at a cron's fires.
    await redis.hset(`${key}:rule`, ...members.flatMap((m) => [m, m.endsWith('/orders') ? 'every 3600000' : 'cron 0 19 * * * UTC']));
    const ran: string[] = [];
    // Nothing runs until the count starts: the loop is started inside it.
    const n = await commandsOf(async () => {
      const loop = startDueLoop({
        redis,
        key,
        logger: captureLogger().logger,
        concurrency: 100,
        gapMs: 60_000,
        maxSleepMs: 60_000,
        // Each answers its slot's next, an hour on: for an interval member, the slot its claim wrote.
        resolve: async (member) => async (claim) => (ran.push(member), claim.slot + 3_600_000),
      });
      await until(() => ran.length === 100, 10_000);
      // Each run's end (one command for a cron's) before the loop closes.
      await sleep(500);
      await loop.close(1_000);
    });
    expect(await redis.zcount(key, now - 1000 + 3_600_000, now - 1000 + 3_600_000)).toBe(100);
    // The look that claimed them (the script, its range read and its rules read, a write each: 3 + 100), the one right
    // after it (a whole batch taken: more may be due; 2); the end of each cron member's run (50). Before the claim
    // wrote an interval's next slot, each member's end was one more command: 2 + 100 + 2 + 100.
    expect(n).toBeLessThanOrEqual(3 + 100 + 2 + 50);
  });
});
