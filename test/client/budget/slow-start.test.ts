import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RequestBudget } from '../../../src/client/budget/budget.js';
import { readShares } from '../../../src/client/budget/share-status.js';
import { SENT_SLOTS } from '../../../src/client/budget/budget-scripts.js';
import { redisKeys, type RedisKeys } from '../../../src/redis/connection.js';
import { connect, deletePrefix, uniquePrefix } from '../../helpers/redis.js';

/** An account with one total of 1,200 a minute (and as much per class). */
const TOTAL = { postPerMinute: 1200, getPerMinute: 1200, collectionPerHour: 3600, requestsPerMinute: 1200, headroom: 0.98 };
const ACCOUNT = 'acme';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a fresh process on an account nothing is known of (slow start)', () => {
  let redis: Redis;
  let prefix: string;
  let keys: RedisKeys;
  /** A process of the program: half the budget at first (the slow start). */
  const proc = (account = ACCOUNT, budgets = TOTAL) =>
    new RequestBudget({ redis, keys, budgets, shares: { floor: 0.1, start: 0.5, account } });
  const total = async () => (await readShares(redis, keys)).total;

  beforeEach(() => {
    redis = connect();
    prefix = uniquePrefix('slow-start');
    keys = redisKeys(prefix);
  });
  afterEach(async () => {
    await deletePrefix(redis, prefix);
    await redis.quit();
  });

  /** The service's window as learnt from its resets (a short one, so that a test sees a few of them). */
  const WINDOW_MS = 4_000;
  const shortWindows = () => redis.hset(keys.budgetShare('total'), 'winLen', WINDOW_MS, 'learned', '1');
  /** Full pace of the total: 1,200 a minute x 0.98, a request a ms. */
  const FULL_PER_MS = (1200 * 0.98) / 60_000;
  /** Steps of 0.125 every second: the start's rise in 4 s (the defaults' 0.04 every 2 s take 25 s). */
  const quick = () =>
    new RequestBudget({
      redis,
      keys,
      budgets: TOTAL,
      shares: { floor: 0.1, start: 0.5, account: ACCOUNT, startStep: 0.125, startStepMs: 1_000 },
    });

  it('rises from its start a step at a time while no 429 comes, at the pace of each step, to the full budget', async () => {
    const b = quick();
    await b.acquire('post');
    const first = await total();
    expect(first.factor).toBeCloseTo(0.5, 3);
    expect(first.reason).toBe('slow-start');
    // The classes are not what the answers speak of with a total: they keep their budgets.
    expect((await readShares(redis, keys)).post.factor).toBe(1);

    // Answers without X-RateLimit-* (the service sends them on its 429s only), the requests back to back (each waits
    // for its slot): the program sends what its share allows, and the share steps up whatever the window's phase.
    const started = Date.now();
    const steps: Array<{ at: number; factor: number }> = [{ at: started, factor: 0.5 }];
    const sends: number[] = [];
    while (Date.now() - started < 10_000 && steps.at(-1)!.factor < 1) {
      for (let i = 0; i < 4; i++) {
        await b.acquire('post');
        sends.push(Date.now());
      }
      await b.observe('post', 200, {});
      const s = await total();
      if (s.factor !== steps.at(-1)!.factor) steps.push({ at: Date.now(), factor: s.factor });
      if (s.factor < 1) expect(s.reason).toBe('slow-start');
    }
    // Alone: four steps of 0.125, each at least a step's time after the last, the full budget after about 4 s.
    expect(steps.map((x) => x.factor)).toEqual([0.5, 0.625, 0.75, 0.875, 1]);
    for (let i = 1; i < steps.length; i++) expect(steps[i]!.at - steps[i - 1]!.at).toBeGreaterThanOrEqual(990);
    expect(steps.at(-1)!.at - started).toBeLessThan(8_000);
    expect((await total()).reason).toBe('configured');
    // Each step at its pace: between the first two steps, about half the full pace; in the last, 0.875 of it.
    const rate = (from: number, to: number) => sends.filter((t) => t >= from && t < to).length / (to - from);
    expect(rate(steps[0]!.at + 50, steps[1]!.at)).toBeLessThan(0.6 * FULL_PER_MS);
    expect(rate(steps[0]!.at + 50, steps[1]!.at)).toBeGreaterThan(0.4 * FULL_PER_MS);
    expect(rate(steps[3]!.at + 50, steps[4]!.at)).toBeGreaterThan(0.75 * FULL_PER_MS);

    // Alone, that is learnt: the next process starts at the full budget.
    await redis.del(keys.budgetShare('total'));
    await proc().acquire('post');
    expect((await total()).factor).toBe(1);
  });

  it("leaves a slow start under way to the account's next process, which goes on from its last step", async () => {
    const b = quick();
    await b.acquire('post');
    const started = Date.now();
    while ((await total()).factor < 0.75 && Date.now() - started < 6_000) {
      for (let i = 0; i < 4; i++) await b.acquire('post');
      await b.observe('post', 200, {});
    }
    expect((await total()).factor).toBeCloseTo(0.75, 3);
    // The process ends (a `sync --once` done) and its share hash lapses: the next one goes on at 0.75, still starting.
    await redis.del(keys.budgetShare('total'));
    await quick().acquire('post');
    const next = await total();
    expect(next.factor).toBeCloseTo(0.75, 3);
    expect(next.reason).toBe('slow-start');
  });

  it('does not rise while the program sends less than its pace allows, whatever the window learnt', async () => {
    const b = quick();
    await b.acquire('post');
    await shortWindows();
    // One request every 150 ms: less than the start's pace (every 100 ms), so no step (every second) proves anything.
    const until = Date.now() + 3_500;
    while (Date.now() < until) {
      await sleep(150);
      await b.acquire('post');
      await b.observe('post', 200, {});
    }
    const s = await total();
    expect(s.factor).toBeCloseTo(0.5, 3);
    expect(s.reason).toBe('slow-start');
  });

  it('does not rise while the process sends far fewer requests than its pace allows', async () => {
    const b = quick();
    await b.acquire('post');
    // One request every 300 ms against a pace of one every 100 ms: none waits.
    const until = Date.now() + 2_500;
    while (Date.now() < until) {
      await sleep(300);
      await b.acquire('post');
      await b.observe('post', 200, {});
    }
    const s = await total();
    expect(s.factor).toBeCloseTo(0.5, 3);
    expect(s.reason).toBe('slow-start');
  });

  it("backs off to what the others leave at its first 429, and the account's next process starts from it", async () => {
    const b = proc();
    await b.acquire('post');
    // 50 s into a minute's window: this program sent 500 of it, and the service answers 429 (the others spent 700).
    const now = Date.now();
    for (let at = now - 50_000; at < now; at += 500) {
      const bucket = Math.floor(at / 500);
      await redis.hset(keys.budgetSent('total'), String(bucket % SENT_SLOTS), `${bucket}:5`);
    }
    const reset = Math.ceil((now + 10_000) / 1000);
    await b.observe('post', 429, { 'x-ratelimit-limit': '1200', 'x-ratelimit-reset': String(reset) });
    const learnt = await total();
    // The others: 700 in 50 s, 840 a minute; what they leave: (1,200 - 840 / 0.98) / 1,200 = 0.29.
    expect(learnt.reason).toBe('shared-429');
    expect(learnt.factor).toBeGreaterThan(0.26);
    expect(learnt.factor).toBeLessThan(0.31);
    expect(await redis.pttl(keys.budgetLearnt('total', ACCOUNT))).toBeGreaterThan(60_000);

    // Every process gone long enough for the share hash to lapse: a fresh one starts from what was learnt.
    await redis.del(keys.budgetShare('total'));
    await proc().acquire('post');
    const fresh = await total();
    expect(fresh.factor).toBeCloseTo(learnt.factor, 3);
    expect(fresh.reason).toBe('remembered');
    // Another account on the same prefix learnt nothing: it slow-starts.
    await redis.del(keys.budgetShare('total'));
    await proc('another-account').acquire('post');
    expect((await total()).reason).toBe('slow-start');
  });

  it('changes nothing where the service sends X-RateLimit-Remaining on every answer', async () => {
    const b = proc();
    await b.acquire('post');
    expect((await total()).factor).toBeCloseTo(0.5, 3);
    // The same answers to a process without a slow start, on keys of its own.
    const plainKeys = redisKeys(`${prefix}:plain`);
    const plain = new RequestBudget({ redis, keys: plainKeys, budgets: TOTAL, shares: { floor: 0.1, account: ACCOUNT } });
    await plain.acquire('post');
    // The first answer tells the window's state: the share is what it is without a slow start, at once.
    const reset = Date.now() + 30_000;
    const answer = { 'x-ratelimit-limit': '1200', 'x-ratelimit-remaining': '1190', 'x-ratelimit-reset': String(reset) };
    await b.observe('post', 200, answer);
    await plain.observe('post', 200, answer);
    const [s, p] = [await total(), (await readShares(redis, plainKeys)).total];
    expect(await redis.hget(keys.budgetShare('total'), 'f')).toBe(await redis.hget(plainKeys.budgetShare('total'), 'f'));
    expect(s.factor).toBeCloseTo(p.factor, 2);
    expect(s.reason).toBe(p.reason);
    // Nothing is remembered in that mode: the service says it all on each answer.
    expect(await redis.exists(keys.budgetLearnt('total', ACCOUNT))).toBe(0);
  });

  it('never slow-starts when told to start at the full budget (INVENTORY_RATE_START_PERCENT=100)', async () => {
    const b = new RequestBudget({ redis, keys, budgets: TOTAL, shares: { floor: 0.1, start: 1, account: ACCOUNT } });
    await b.acquire('post');
    expect(await redis.exists(keys.budgetShare('total'))).toBe(0);
    expect((await total()).factor).toBe(1);
  });
});
