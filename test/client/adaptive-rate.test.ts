import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AdaptiveRate, type ShareChange } from '../../src/client/adaptive-rate.js';
import { RequestBudget } from '../../src/client/budget.js';
import { readShares } from '../../src/client/budget-share.js';
import { readRateLimitHeaders } from '../../src/client/rate-limit-headers.js';
import { redisKeys, type RedisKeys } from '../../src/redis.js';
import { connect, deletePrefix, uniquePrefix } from '../helpers/redis.js';

/** An account with one total of 1,200 a minute (and as much per class). */
const TOTAL = { postPerMinute: 1200, getPerMinute: 1200, collectionPerHour: 3600, requestsPerMinute: 1200, headroom: 0.98 };
const headers = (h: { limit?: number; remaining?: number; reset?: number }) => ({
  ...(h.limit === undefined ? {} : { 'x-ratelimit-limit': String(h.limit) }),
  ...(h.remaining === undefined ? {} : { 'x-ratelimit-remaining': String(h.remaining) }),
  ...(h.reset === undefined ? {} : { 'x-ratelimit-reset': String(h.reset) }),
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the shared budget (adaptive rate)', () => {
  let redis: Redis;
  let prefix: string;
  let keys: RedisKeys;
  let changes: ShareChange[];
  const rate = (budgets = TOTAL) => new AdaptiveRate(redis, keys, budgets, { floor: 0.1, onChange: (c) => changes.push(c) });

  beforeEach(() => {
    redis = connect();
    prefix = uniquePrefix('share');
    keys = redisKeys(prefix);
    changes = [];
  });
  afterEach(async () => {
    await deletePrefix(redis, prefix);
    await redis.quit();
  });

  describe("when X-RateLimit-Remaining is lower than this program's own answers explain", () => {
    it('lowers its share to what the others leave, for every process, and says why', async () => {
      const a = rate();
      const b = rate();
      // Half-way through the window: the others spent 200 (400 a minute) beside our 10 answers.
      const reset = Date.now() + 30_000;
      for (let own = 1; own <= 10; own++)
        await (own % 2 ? a : b).observe('post', 200, headers({ limit: 1200, remaining: 1200 - own - 200, reset }));
      const shares = await readShares(redis, keys);
      // (1,200 - 400 / 0.98) / 1,200 = 0.66 of the configured total, where 400 + 0.66 × 1,176 stays within 1,200.
      expect(shares.total.factor).toBeGreaterThan(0.55);
      expect(shares.total.factor).toBeLessThan(0.75);
      expect(shares.total.reason).toBe('shared-remaining');
      expect(shares.total.otherPerMinute).toBeGreaterThan(350);
      expect(shares.total.otherPerMinute).toBeLessThan(450);
      // The classes are not what the headers speak of here.
      expect(shares.post.factor).toBe(1);
      expect(changes.some((c) => c.lane === 'total' && c.reason === 'shared-remaining')).toBe(true);
      await b.refresh();
      expect(b.ratePerSecond()).toBeLessThan((1200 / 60) * 0.98 * 0.75);
    });

    it('holds the floor and warns through onChange when the others leave less than it', async () => {
      const a = rate();
      const reset = Date.now() + 30_000;
      // The others spent 590 in half a window: about all of the total.
      for (let own = 1; own <= 6; own++) await a.observe('get', 200, headers({ limit: 1200, remaining: 1200 - own - 590, reset }));
      const { total } = await readShares(redis, keys);
      expect(total.factor).toBeCloseTo(0.1, 3);
      expect(total.reason).toBe('floor');
      expect(changes.at(-1)?.reason).toBe('floor');
    });
  });

  describe('when the service answers 429 while this program is within its budget', () => {
    it('multiplies its share down once per window of the service, not once per answer', async () => {
      const a = rate();
      const first = Date.now() + 20_000;
      for (let i = 0; i < 3; i++) await a.observe('post', 429, headers({ limit: 1200, reset: first }));
      expect((await readShares(redis, keys)).total.factor).toBeCloseTo(0.7, 3);
      await a.observe('post', 429, headers({ limit: 1200, reset: first + 60_000 }));
      const { total } = await readShares(redis, keys);
      expect(total.factor).toBeCloseTo(0.49, 3);
      expect(total.reason).toBe('shared-429');
    });

    it('lowers the class itself on an account without a total', async () => {
      const a = rate({ ...TOTAL, requestsPerMinute: undefined } as never);
      await a.observe('post', 429, headers({ reset: Math.ceil((Date.now() + 20_000) / 1000) }));
      const shares = await readShares(redis, keys);
      expect(shares.post.factor).toBeCloseTo(0.7, 3);
      expect(shares.total.factor).toBe(1);
    });
  });

  describe('when the others stop', () => {
    it('climbs back a step at a time to the configured budget, and never above it', async () => {
      const a = rate();
      await a.observe('post', 429, headers({ limit: 1200, reset: Date.now() + 1_000 }));
      await a.observe('post', 429, headers({ limit: 1200, reset: Date.now() + 2_000 }));
      const low = (await readShares(redis, keys)).total.factor;
      expect(low).toBeLessThan(0.5);
      // Windows of 1.2 s (learned from the resets): steps back up go by them. Nobody else spends anything now.
      const seen: number[] = [];
      const until = Date.now() + 20_000;
      let own = 0;
      let window = 0;
      while (Date.now() < until) {
        const reset = (Math.floor(Date.now() / 1200) + 1) * 1200;
        if (reset !== window) [window, own] = [reset, 0];
        own++;
        await a.observe('post', 200, headers({ limit: 1200, remaining: 1200 - own, reset }));
        seen.push((await readShares(redis, keys)).total.factor);
        if (seen.at(-1)! >= 1) break;
        await sleep(50);
      }
      expect(seen.at(-1)).toBe(1);
      // Additively: up only, in steps no larger than 0.05 of the budget.
      for (let i = 1; i < seen.length; i++) {
        expect(seen[i]!).toBeGreaterThanOrEqual(seen[i - 1]!);
        expect(seen[i]! - seen[i - 1]!).toBeLessThanOrEqual(0.0501);
      }
      expect((await readShares(redis, keys)).total.reason).toBe('configured');
    });
  });

  describe("when the service's X-RateLimit-Limit differs from the configured budget", () => {
    it('paces to a lower limit, and never above the configured budget for a higher one', async () => {
      const a = rate({ ...TOTAL, requestsPerMinute: undefined } as never);
      // Two windows of a minute in a row: the service's window is known, so its limit can be compared with ours.
      const reset = Date.now() + 30_000;
      for (const r of [reset, reset + 60_000])
        for (let own = 1; own <= 3; own++) await a.observe('get', 200, headers({ limit: 2400, remaining: 2400 - own, reset: r }));
      expect((await readShares(redis, keys)).get.factor).toBe(1);
      for (const r of [reset, reset + 60_000])
        for (let own = 1; own <= 3; own++) await a.observe('post', 200, headers({ limit: 600, remaining: 600 - own, reset: r }));
      const { post } = await readShares(redis, keys);
      expect(post.factor).toBeGreaterThan(0.45);
      expect(post.factor).toBeLessThan(0.55);
      expect(post.reason).toBe('service-limit');
    });
  });

  describe('the budget', () => {
    it('spaces requests by the lowered share', async () => {
      const budgets = { postPerMinute: 6000, getPerMinute: 6000, collectionPerHour: 3600, headroom: 0.98 };
      const b = new RequestBudget({ redis, keys, budgets });
      // The service says 1,500 a minute: a quarter of the configured 6,000 (reached in halvings, one per answer).
      const reset = Date.now() + 30_000;
      await b.observe('post', 200, headers({ limit: 1500, remaining: 1499, reset }));
      for (let own = 1; own <= 3; own++)
        await b.observe('post', 200, headers({ limit: 1500, remaining: 1500 - own, reset: reset + 60_000 }));
      expect((await readShares(redis, keys)).post.factor).toBeCloseTo(0.25, 2);
      const t0 = Date.now();
      for (let i = 0; i < 11; i++) await b.acquire('post');
      // 10 intervals of 60,000 / (6,000 × 0.98) / 0.25 = 40.8 ms: never faster (a slower machine only adds).
      expect(Date.now() - t0).toBeGreaterThanOrEqual(10 * 40.8 * 0.95);
    });

    it('ignores the evidence when the adaptive rate is off (INVENTORY_ADAPTIVE_RATE=off)', async () => {
      const b = new RequestBudget({ redis, keys, budgets: TOTAL, adaptive: false });
      await b.observe('post', 429, headers({ limit: 1200, reset: Date.now() + 20_000 }));
      expect(await redis.exists(keys.budgetShare('total'))).toBe(0);
      expect(b.ratePerSecond()).toBeCloseTo((1200 / 60) * 0.98, 5);
    });
  });
});

describe('X-RateLimit-* headers', () => {
  it('reads the reset in epoch ms, epoch seconds or seconds from now, and leaves out what is missing or not a number', () => {
    const now = 1_800_000_000_000;
    expect(
      readRateLimitHeaders({ 'x-ratelimit-reset': String(now + 5000), 'x-ratelimit-limit': '120', 'x-ratelimit-remaining': '7' }, now),
    ).toEqual({ limit: 120, remaining: 7, resetAt: now + 5000 });
    expect(readRateLimitHeaders({ 'x-ratelimit-reset': String(now / 1000 + 5) }, now)).toEqual({ resetAt: now + 5000 });
    expect(readRateLimitHeaders({ 'x-ratelimit-reset': '5' }, now)).toEqual({ resetAt: now + 5000 });
    expect(readRateLimitHeaders({ 'x-ratelimit-remaining': 'lots', 'x-ratelimit-limit': '' }, now)).toEqual({});
  });
});
