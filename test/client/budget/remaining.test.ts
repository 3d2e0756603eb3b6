import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BudgetShares } from '../../../src/client/budget/share.js';
import { RequestBudget } from '../../../src/client/budget/budget.js';
import { readShares } from '../../../src/client/budget/share-status.js';
import { readRateLimitHeaders } from '../../../src/client/answers/rate-limit-headers.js';
import { redisKeys, type RedisKeys } from '../../../src/redis/connection.js';
import { connect, deletePrefix, uniquePrefix } from '../../helpers/redis.js';

/** An account with one total of 1,200 a minute (and as much per class). */
const TOTAL = { postPerMinute: 1200, getPerMinute: 1200, collectionPerHour: 3600, requestsPerMinute: 1200, headroom: 0.98 };
const headers = (h: { limit?: number; remaining?: number; reset?: number }) => ({
  ...(h.limit === undefined ? {} : { 'x-ratelimit-limit': String(h.limit) }),
  ...(h.remaining === undefined ? {} : { 'x-ratelimit-remaining': String(h.remaining) }),
  ...(h.reset === undefined ? {} : { 'x-ratelimit-reset': String(h.reset) }),
});

/**
 * What X-RateLimit-Remaining on every answer tells, by its reset (docs/budget-start.md, "Remaining with no window's
 * end"): a fixed window's count where the reset is a window's end; nothing, and the share read from 429s, where the
 * reset is within 2 s and no window that short was learnt (a sliding window, a token bucket). Real Redis, the share
 * script; the shapes over HTTP: start-windows.test.ts.
 */
describe('X-RateLimit-Remaining on every answer', () => {
  let redis: Redis;
  let prefix: string;
  let keys: RedisKeys;
  const rate = (budgets = TOTAL) => new BudgetShares(redis, keys, budgets, { floor: 0.1 });
  const total = async () => (await readShares(redis, keys)).total;

  beforeEach(() => {
    redis = connect();
    prefix = uniquePrefix('remaining');
    keys = redisKeys(prefix);
  });
  afterEach(async () => {
    await deletePrefix(redis, prefix);
    await redis.quit();
  });

  describe('with a reset within 2 s (a sliding window, a token bucket)', () => {
    it('lowers nothing for a low Remaining: no window to read it against, the share read from 429s', async () => {
      const a = rate();
      // A sliding window nearly full, its oldest request leaving in 300 ms, answer after answer.
      for (let i = 0; i < 20; i++) await a.observe('post', 200, headers({ limit: 1200, remaining: 3, reset: Date.now() + 300 }));
      const s = await total();
      expect(s.factor).toBe(1);
      expect(s.reason).toBe('configured');
      // Read from 429s: the budget pulses, as with the headers on 429s only.
      expect(await redis.hget(keys.budgetShare('total'), 'pulse')).toBe('1');
      // The same answers with the window's end 30 s away: the others' count is read, and the share lowered.
      const reset = Date.now() + 30_000;
      for (let own = 1; own <= 10; own++) await a.observe('post', 200, headers({ limit: 1200, remaining: 1200 - own - 600, reset }));
      expect((await total()).factor).toBeLessThan(0.5);
      expect(await redis.hget(keys.budgetShare('total'), 'pulse')).toBe('0');
    });

    it('ends a slow start at the first answer, as Remaining on every answer always did, and reads the share from 429s', async () => {
      const b = new RequestBudget({ redis, keys, budgets: TOTAL, shares: { floor: 0.1, start: 0.5, account: 'acme' } });
      await b.acquire('post');
      expect((await total()).reason).toBe('slow-start');
      await b.observe('post', 200, headers({ limit: 1200, remaining: 40, reset: Date.now() + 800 }));
      const s = await total();
      expect(s.factor).toBe(1);
      expect(s.reason).toBe('configured');
      expect(await redis.hget(keys.budgetShare('total'), 'pulse')).toBe('1');
    });

    it('learns no window from resets a second apart where the limit would be 1,200 a second', async () => {
      const a = rate();
      const t0 = Math.ceil(Date.now() / 1000) * 1000;
      for (const reset of [t0 + 3_000, t0 + 4_000, t0 + 5_000]) await a.observe('post', 200, headers({ limit: 1200, remaining: 5, reset }));
      expect(await redis.hget(keys.budgetShare('total'), 'learned')).toBe('0');
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
