import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { startDueLoop, type DueLoop } from '../../src/feed/due-loop.js';
import { dueKey, dueSet } from '../../src/feed/due-set.js';
import { nextDueAt, nextTickAt } from '../../src/feed/due-times.js';
import { captureLogger, sleep } from '../queue/support.js';
import { startRedisServer, type RedisServer } from '../../src/redis/embedded-server.js';
import { until } from '../kit/until.js';

/**
 * The claim of an interval's member (src/feed/due-set.ts, due-loop.ts): it writes the member's next slot, so that a
 * run that answers that slot ends with nothing more written; a run still going is renewed for a lease before its next
 * slot comes due, so that no other process starts it meanwhile. On a private redis-server: its commands are counted.
 */
let server: RedisServer;
let redis: Redis;
let keys = 0;
/** A fresh due set. */
const freshKey = () => dueKey(`due-loop-${++keys}`);
const connect = () => new Redis(server.url);

beforeAll(async () => {
  server = await startRedisServer();
  redis = connect();
});
afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

/** The member's slot of `everyMs` at or before `now` (its last due time). */
const lastSlot = (member: string, everyMs: number, now: number) => nextTickAt(member, everyMs, now).getTime() - everyMs;

describe("the due set's claim", () => {
  it('claims an interval to its next slot; a cron, a member without a rule and a lease that ended for a lease', async () => {
    const key = freshKey();
    const set = dueSet(redis, key);
    const now = 1_800_000_000_000;
    await set.register([
      { member: 'a/orders', at: now - 300, rule: 'every 1000' },
      // Overdue by more than an interval: its first slot after now.
      { member: 'b/orders', at: now - 2_500, rule: 'every 1000' },
      { member: 'a/stock-counts', at: now - 100, rule: 'cron 0 19 * * * UTC' },
      { member: 'c/orders', at: now - 50, rule: 'every 1000' },
    ]);
    await set.add('a/orders!make-up', now - 200);
    // c/orders's run died: its lease ended unfinished.
    await set.renew('c/orders', now - 50);
    const { claimed } = await set.claimDue(now, 60_000, 10, []);
    const byMember = Object.fromEntries(claimed.map((c) => [c.member, c]));
    expect(byMember['a/orders']).toMatchObject({ slot: now - 300, retaken: false, next: now + 700 });
    expect(byMember['b/orders']).toMatchObject({ slot: now - 2_500, retaken: false, next: now + 500 });
    expect(byMember['c/orders']).toMatchObject({ slot: now - 50, retaken: true, next: undefined });
    expect(byMember['a/stock-counts']).toMatchObject({ slot: now - 100, next: undefined });
    expect(byMember['a/orders!make-up']).toMatchObject({ slot: now - 200, next: undefined });
    const scores = Object.fromEntries(
      await Promise.all(claimed.map(async (c) => [c.member, Number(await redis.zscore(key, c.member))] as const)),
    );
    expect(scores).toEqual({
      'a/orders': now + 700,
      'b/orders': now + 500,
      'c/orders': now + 60_000.5,
      'a/stock-counts': now + 60_000.5,
      'a/orders!make-up': now + 60_000.5,
    });
  });
});

describe('a run of an interval member', () => {
  /**
   * A member of `key` due at its last slot of `everyMs`, with its rule. Not close to its next slot (5 s, or a quarter
   * of the interval): a run after it would answer the slot after (once in CI, loaded: 1796604827352, not ...767352).
   */
  async function dueMember(key: string, member: string, everyMs: number): Promise<number> {
    const untilNext = nextTickAt(member, everyMs, Date.now()).getTime() - Date.now();
    if (untilNext < Math.min(5_000, everyMs / 4)) await sleep(untilNext + 50);
    const slot = lastSlot(member, everyMs, Date.now());
    await dueSet(redis, key).register([{ member, at: slot, rule: `every ${everyMs}` }]);
    return slot;
  }

  it('answered with its next slot, ends with nothing written', async () => {
    const key = freshKey();
    const member = 'quick/orders';
    const slot = await dueMember(key, member, 60_000);
    const seen: Array<string | null> = [];
    const zadds = await zaddCalls();
    const loop = startDueLoop({
      redis,
      key,
      logger: captureLogger().logger,
      // As control.ts answers: the schedule's next time after the run.
      resolve: async () => async () => (seen.push(await redis.zscore(key, member)), nextDueAt(member, { every: 60 }, Date.now())),
    });
    try {
      await until(() => seen.length === 1);
      await sleep(300);
      // Claimed to its next slot, not for a lease; and there still.
      expect(Number(seen[0])).toBe(slot + 60_000);
      expect(Number(await redis.zscore(key, member))).toBe(slot + 60_000);
      // One ZADD in all, the claim's: no end.
      expect((await zaddCalls()) - zadds).toBe(1);
    } finally {
      await loop.close(1_000);
    }
  });

  it('that answers another time (its rule changed) or none is ended with it', async () => {
    const key = freshKey();
    const slots = new Map([
      ['changed/orders', await dueMember(key, 'changed/orders', 60_000)],
      ['gone/orders', await dueMember(key, 'gone/orders', 60_000)],
    ]);
    const claimedTo = new Map<string, number>();
    // This process's schedule says every 5 s (another's registered 60 s); a stream gone answers no next time.
    const answer = (member: string) => (member === 'gone/orders' ? undefined : nextDueAt(member, { every: 5 }, Date.now()));
    const answered = new Map<string, number | undefined>();
    const loop = startDueLoop({
      redis,
      key,
      logger: captureLogger().logger,
      resolve: async (member) => async () => {
        claimedTo.set(member, Number(await redis.zscore(key, member)));
        const next = answer(member);
        answered.set(member, next);
        return next;
      },
    });
    try {
      await until(() => answered.size === 2);
      await until(async () => (await redis.zscore(key, 'gone/orders')) === null, 2_000);
      // Each claimed to its next slot of 60 s, then ended with its own answer.
      for (const [member, to] of claimedTo) expect(to).toBe(slots.get(member)! + 60_000);
      expect(Number(await redis.zscore(key, 'changed/orders'))).toBe(answered.get('changed/orders'));
    } finally {
      await loop.close(1_000);
    }
  });

  it('that takes longer than its interval is renewed before its next slot: no other process starts it meanwhile', async () => {
    const key = freshKey();
    const member = 'slow/orders';
    const slot = await dueMember(key, member, 1_000);
    const runs: Array<{ start: number; end?: number; score: number; others: number }> = [];
    const loopOf = (connection: Redis): DueLoop =>
      startDueLoop({
        redis: connection,
        key,
        logger: captureLogger().logger,
        resolve: async () => async () => {
          const others = runs.filter((r) => r.end === undefined).length;
          const run: (typeof runs)[number] = { start: Date.now(), score: Number(await connection.zscore(key, member)), others };
          runs.push(run);
          // The first run takes 2.5 intervals; the others none.
          if (runs.length === 1) await sleep(2_500);
          run.end = Date.now();
          return nextDueAt(member, { every: 1 }, Date.now());
        },
      });
    const other = connect();
    const [a, b] = [loopOf(redis), loopOf(other)];
    try {
      await until(() => runs.length >= 3, 10_000);
      // Claimed to its next slot at first.
      expect(runs[0]!.score).toBe(slot + 1_000);
      // One run at a time between the two processes: none began while another went on.
      expect(runs.map((r) => r.others)).toEqual(runs.map(() => 0));
      // The next at its slot after the long one's end, not later (that end wrote its next time, over the lease).
      expect(runs[1]!.start - runs[0]!.end!).toBeLessThanOrEqual(1_250);
    } finally {
      await Promise.all([a.close(3_000), b.close(3_000)]);
      other.disconnect();
    }
  }, 20_000);

  it('renewed, then ended before its next slot, is ended at that slot: its lease does not stay', async () => {
    const key = freshKey();
    const member = 'renewed/orders';
    // Due at its next slot of 2 s: the look claims it then, a whole interval before the slot after.
    const first = nextTickAt(member, 2_000).getTime();
    await dueSet(redis, key).register([{ member, at: first, rule: 'every 2000' }]);
    const scores: number[] = [];
    const loop = startDueLoop({
      redis,
      key,
      logger: captureLogger().logger,
      resolve: async () => async () => {
        const to = Number(await redis.zscore(key, member));
        // Past its first renewal (halfway to the next slot), ended before that slot: its answer is the claimed slot.
        await sleep((to - Date.now()) * 0.75);
        scores.push(to, Number(await redis.zscore(key, member)));
        return nextDueAt(member, { every: 2 }, Date.now());
      },
    });
    try {
      await until(() => scores.length === 2, 8_000);
      await sleep(100);
      expect(scores[0]).toBe(first + 2_000);
      // Renewed for a lease while it ran (a lease ends in half a millisecond), then ended at its slot.
      expect(scores[1]! % 1).toBe(0.5);
      expect(Number(await redis.zscore(key, member))).toBe(first + 2_000);
    } finally {
      await loop.close(1_000);
    }
  });
});

/** ZADDs the server ran so far (a script's own included: INFO commandstats). */
async function zaddCalls(): Promise<number> {
  return Number(/cmdstat_zadd:calls=(\d+)/.exec(await redis.info('commandstats'))?.[1] ?? 0);
}
