import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BudgetShares, type ShareChange } from '../../../src/client/budget/share.js';
import { RequestBudget } from '../../../src/client/budget/budget.js';
import { readShares } from '../../../src/client/budget/share-status.js';
import { SENT_SLOTS } from '../../../src/client/budget/budget-scripts.js';
import { redisKeys, type RedisKeys } from '../../../src/redis/connection.js';
import { connect, deletePrefix, uniquePrefix } from '../../helpers/redis.js';

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
  const rate = (budgets = TOTAL) => new BudgetShares(redis, keys, budgets, { floor: 0.1, onChange: (c) => changes.push(c) });

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

  describe('when the service answers 429 while this program is within its budget, and tells its state on every answer', () => {
    it('multiplies its share down once per window of the service, not once per answer', async () => {
      const a = rate();
      const first = Date.now() + 20_000;
      await a.observe('post', 200, headers({ limit: 1200, remaining: 1199, reset: first }));
      for (let i = 0; i < 3; i++) await a.observe('post', 429, headers({ limit: 1200, reset: first }));
      expect((await readShares(redis, keys)).total.factor).toBeCloseTo(0.7, 3);
      await a.observe('post', 200, headers({ limit: 1200, remaining: 1199, reset: first + 60_000 }));
      await a.observe('post', 429, headers({ limit: 1200, reset: first + 60_000 }));
      const { total } = await readShares(redis, keys);
      expect(total.factor).toBeCloseTo(0.49, 3);
      expect(total.reason).toBe('shared-429');
    });

    it('lowers the class itself on an account without a total', async () => {
      const a = rate({ ...TOTAL, requestsPerMinute: undefined } as never);
      await a.observe('post', 429, headers({ reset: Math.ceil((Date.now() + 20_000) / 1000) }));
      const shares = await readShares(redis, keys);
      expect(shares.post.factor).toBeLessThan(1);
      expect(shares.total.factor).toBe(1);
    });
  });

  describe('when the service sends X-RateLimit-* on its 429s only', () => {
    /** This program's sends as acquire records them: `count` in each 500 ms bucket from `from` to `to`. */
    const sent = async (from: number, to: number, count: number) => {
      for (let at = from; at < to; at += 500) {
        const b = Math.floor(at / 500);
        await redis.hset(keys.budgetSent('total'), String(b % SENT_SLOTS), `${b}:${count}`);
      }
    };

    it('reads what the others spent from the 429 and its own sends in the window, and settles just under what they leave', async () => {
      const a = rate();
      const now = Date.now();
      // 50 s into a minute's window: this program sent 600 (720 a minute); before the window, more that must not count.
      await sent(now - 60_000, now - 50_000, 20);
      await sent(now - 50_000, now, 6);
      const reset = now + 10_000;
      for (let i = 0; i < 3; i++) await a.observe('post', 429, headers({ limit: 1200, reset: Math.ceil(reset / 1000) }));
      const { total } = await readShares(redis, keys);
      // The others: (1,200 - 600) in 50 s, 720 a minute; what they leave: (1,200 - 720 / 0.98) / 1,200 = 0.39.
      expect(total.otherPerMinute).toBeGreaterThan(690);
      expect(total.otherPerMinute).toBeLessThan(760);
      expect(total.factor).toBeGreaterThan(0.36);
      expect(total.factor).toBeLessThan(0.41);
      expect(total.reason).toBe('shared-429');
      expect(changes.filter((c) => c.reason === 'shared-429')).toHaveLength(1);
    });

    it('climbs back one small step every four windows near the last ceiling, then a window each, larger once well past it', async () => {
      // Windows of 1 s: the first 429 cannot be read (its window is not known yet: 20 is not the configured 1,200 a
      // minute) and multiplies the share down; the second, a window later, teaches the window and is read.
      let end = Math.ceil(Date.now() / 1000) * 1000;
      if (end - Date.now() < 100) end += 1000;
      await rate().observe('post', 429, headers({ limit: 20, reset: end }));
      await sleep(end + 900 - Date.now());
      await sent(end, end + 1000, 6);
      await rate().observe('post', 429, headers({ limit: 20, reset: end + 1000 }));
      const settled = (await readShares(redis, keys)).total;
      // The others: 20 - 12 in 0.9 s, about 533 a minute: (1,200 - 533 / 0.98) / 1,200 = 0.55.
      expect(settled.factor).toBeGreaterThan(0.5);
      expect(settled.factor).toBeLessThan(0.6);
      const seen = [{ f: settled.factor, at: Date.now() }];
      const until = Date.now() + 19_000;
      while (Date.now() < until) {
        const p = rate();
        await p.refresh();
        await p.observe('post', 200, {});
        const f = (await readShares(redis, keys)).total.factor;
        if (f !== seen.at(-1)!.f) seen.push({ f, at: Date.now() });
        await sleep(100);
      }
      const steps = seen.slice(1).map((s, i) => ({ up: s.f - seen[i]!.f, after: s.at - seen[i]!.at }));
      expect(steps.length).toBeGreaterThanOrEqual(6);
      // One step a window at most, up only; 0.01 of the budget while near the last ceiling, then growing, never past 0.1.
      for (const s of steps) {
        expect(s.up).toBeGreaterThan(0);
        expect(s.up).toBeLessThanOrEqual(0.1001);
        expect(s.after).toBeGreaterThanOrEqual(900);
      }
      for (const s of steps.slice(0, 4)) expect(s.up).toBeCloseTo(0.01, 3);
      // From the ceiling to three steps above it (where a step is likely to cross what the others leave), four
      // windows between steps; a window each past it.
      for (const s of steps.slice(0, 3)) expect(s.after).toBeGreaterThanOrEqual(3_900);
      expect(steps[3]!.after).toBeLessThan(3_000);
      expect(steps.at(-1)!.up).toBeGreaterThan(0.015);
      expect((await readShares(redis, keys)).total.reason).toBe('probing');
    }, 30_000);

    it('counts what it sends by time, for every lane the request spends', async () => {
      const b = new RequestBudget({ redis, keys, budgets: TOTAL });
      for (let i = 0; i < 5; i++) await b.acquire('post');
      const count = async (lane: string) =>
        Object.values(await redis.hgetall(keys.budgetSent(lane))).reduce((n, v) => n + Number(v.split(':')[1]), 0);
      expect(await count('total')).toBe(5);
      expect(await count('post')).toBe(5);
    });
  });

  describe('when the others stop', () => {
    it('climbs back a step at a time to the configured budget, and never above it', async () => {
      const a = rate();
      await a.observe('post', 429, headers({ limit: 1200, reset: Date.now() + 1_000 }));
      await a.observe('post', 429, headers({ limit: 1200, reset: Date.now() + 2_000 }));
      const low = (await readShares(redis, keys)).total.factor;
      expect(low).toBeLessThan(0.5);
      // Windows of 1.2 s of 28 (1,400 a minute: about the configured 1,200, so the window is learned from the resets):
      // steps back up go by them. Nobody else spends anything now.
      const seen: number[] = [];
      const until = Date.now() + 20_000;
      let own = 0;
      let window = 0;
      while (Date.now() < until) {
        const reset = (Math.floor(Date.now() / 1200) + 1) * 1200;
        if (reset !== window) [window, own] = [reset, 0];
        own++;
        await a.observe('post', 200, headers({ limit: 28, remaining: Math.max(0, 28 - own), reset }));
        // (The share itself: what the window has left may bind below it for a part of a window, apart from it.)
        seen.push(Number(await redis.hget(keys.budgetShare('total'), 'f')));
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

    it('lets a small part of what X-RateLimit-Remaining leaves go at once, and paces only beyond it', async () => {
      const b = new RequestBudget({ redis, keys, budgets: TOTAL });
      // 497 of 500 collection reads left, 30 minutes before the reset: spread evenly, one every 3.6 s.
      await b.observe('collection', 200, headers({ limit: 500, remaining: 497, reset: Date.now() + 1_800_000 }));
      expect((await readShares(redis, keys)).collection.reason).toBe('window-remaining');
      const t0 = Date.now();
      for (let i = 0; i < 20; i++) await b.acquire('collection');
      expect(Date.now() - t0).toBeLessThan(2_000);
      // A twentieth of what is left (24) goes at once; past it, the reads are paced again.
      for (let i = 0; i < 5; i++) await b.acquire('collection');
      await expect(b.acquire('collection', AbortSignal.timeout(1_000))).rejects.toThrow();
    });

    it('reads the shares at every sizing while its requests take budget, and once a minute while idle (issue 36)', async () => {
      const idle = new RequestBudget({ redis, keys, budgets: TOTAL });
      const busy = new RequestBudget({ redis, keys, budgets: TOTAL });
      const full = (1200 / 60) * 0.98;
      const t0 = Date.now();
      // The first read, busy or not.
      await idle.refreshShares(t0);
      expect(idle.ratePerSecond()).toBeCloseTo(full, 5);
      // Another process lowers the total's share to a quarter.
      await redis.hset(keys.budgetShare('total'), 'f', '0.25');
      await busy.acquire('post');
      await busy.refreshShares(t0 + 2_000);
      await idle.refreshShares(t0 + 2_000);
      expect(busy.ratePerSecond()).toBeCloseTo(full * 0.25, 5);
      // Idle: its view waits for the next minute's read (nothing of it runs meanwhile).
      expect(idle.ratePerSecond()).toBeCloseTo(full, 5);
      await idle.refreshShares(t0 + 59_000);
      expect(idle.ratePerSecond()).toBeCloseTo(full, 5);
      await idle.refreshShares(t0 + 60_000);
      expect(idle.ratePerSecond()).toBeCloseTo(full * 0.25, 5);
      // A request ends the idle spell: the next sizing reads them, whenever the last read was.
      await redis.hset(keys.budgetShare('total'), 'f', '0.5');
      await idle.acquire('get');
      await idle.refreshShares();
      expect(idle.ratePerSecond()).toBeCloseTo(full * 0.5, 5);
      // Busy: every read goes to Redis (no waiting a minute), until 10 s after its last request.
      const reads: number[] = [];
      const spy = new RequestBudget({ redis, keys, budgets: TOTAL });
      const refresh = spy.shares!.refresh.bind(spy.shares);
      spy.shares!.refresh = async () => (reads.push(1), refresh());
      await spy.acquire('post');
      const at = Date.now();
      for (const ms of [0, 2_000, 4_000, 9_000, 12_000, 14_000]) await spy.refreshShares(at + ms);
      expect(reads.length).toBe(4);
    });

    it('ignores the evidence when the adaptive rate is off (INVENTORY_ADAPTIVE_RATE=off)', async () => {
      const b = new RequestBudget({ redis, keys, budgets: TOTAL, shares: false });
      await b.observe('post', 429, headers({ limit: 1200, reset: Date.now() + 20_000 }));
      await b.acquire('post');
      expect(await redis.exists(keys.budgetShare('total'))).toBe(0);
      expect(await redis.exists(keys.budgetSent('total'))).toBe(0);
      expect(b.ratePerSecond()).toBeCloseTo((1200 / 60) * 0.98, 5);
    });
  });
});
