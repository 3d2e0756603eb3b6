import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaults } from '../../../config/defaults.js';
import { RequestBudget } from '../../../src/client/budget/budget.js';
import { readShares, shareReasonText } from '../../../src/client/budget/share-status.js';
import { SENT_SLOTS } from '../../../src/client/budget/budget-scripts.js';
import { redisKeys, type RedisKeys } from '../../../src/redis/connection.js';
import { connect, deletePrefix, uniquePrefix } from '../../helpers/redis.js';

/** An account with one total of 1,200 a minute (and as much per class). */
const TOTAL = { postPerMinute: 1200, getPerMinute: 1200, collectionPerHour: 3600, requestsPerMinute: 1200, headroom: 0.98 };
const BUCKET_MS = 500;

/**
 * The crossing (issue 49, docs/budget-start.md "After the crossing"): the first 429 of a share at the full budget or of
 * a slow start, with X-RateLimit-* on 429s only, read straight from the share script (the shapes over HTTP:
 * start-windows.test.ts, and the bench's section 10.1).
 */
describe('the crossing: the first 429 of a share at the full budget', () => {
  let redis: Redis;
  let prefix: string;
  let keys: RedisKeys;
  const total = async () => (await readShares(redis, keys)).total;
  const share = (field: string) => redis.hget(keys.budgetShare('total'), field);
  /** This program's sends of the last seconds, `perBucket(ago)` in each 500 ms bucket from `fromMs` ago to now. */
  const sent = async (fromMs: number, perBucket: (agoMs: number) => number) => {
    const now = Date.now();
    for (let at = now - fromMs; at < now; at += BUCKET_MS) {
      const bucket = Math.floor(at / BUCKET_MS);
      const n = perBucket(now - at);
      if (n > 0) await redis.hset(keys.budgetSent('total'), String(bucket % SENT_SLOTS), `${bucket}:${n}`);
    }
  };
  /** A 429 of the total, its reset `inMs` from now (the header in epoch seconds, as the service sends it). */
  const refused = (b: RequestBudget, inMs: number) =>
    b.observe('post', 429, { 'x-ratelimit-limit': '1200', 'x-ratelimit-reset': String(Math.ceil((Date.now() + inMs) / 1000)) });

  beforeEach(async () => {
    redis = connect();
    prefix = uniquePrefix('crossing');
    keys = redisKeys(prefix);
  });
  afterEach(async () => {
    await deletePrefix(redis, prefix);
    await redis.quit();
  });

  /** A process at the full budget (no slow start: the budget declared its own, or a slow start that ended alone). */
  const proc = () => new RequestBudget({ redis, keys, budgets: TOTAL, shares: { floor: 0.1, start: 1, account: 'acme' } });

  it('keeps part of its share where the 429 tells of no window end, as a token bucket spent by its burst answers', async () => {
    const b = proc();
    await b.acquire('post');
    // 300 sent in the last 15 s; one window's count would say the others spent 900 of a minute's 1,200.
    await sent(15_000, () => 10);
    await refused(b, 400);
    const s = await total();
    expect(s.reason).toBe('shared-429');
    // Not what one window's count leaves ((1,200 - 900 / 0.98) / 1,200 = 0.23), but the crossing's part of the full share.
    expect(s.factor).toBeCloseTo(defaults.rateCrossKeep, 2);
    // Until its first requests at that pace (15 s ago) leave the service's window, and `status` says so.
    expect(s.yieldsUntil).toBeGreaterThan(Date.now() + 40_000);
    expect(shareReasonText(s)).toMatch(/; yielding to it until \d{4}-/);
    // And it yields at once: the total held for a yield step, the next request the probe.
    const held = await redis.pttl(keys.budgetHold('total'));
    expect(held).toBeGreaterThan(defaults.rateYieldStepMs - 500);
    expect(held).toBeLessThanOrEqual(defaults.rateYieldStepMs);
  });

  it("goes to what the window's count leaves where the 429 tells of a fixed window's end", async () => {
    const b = proc();
    await b.acquire('post');
    // 45 s into a window that ends in 15 s: this program sent 450 of it, the others 750.
    await sent(45_000, () => 5);
    await refused(b, 15_000);
    const s = await total();
    expect(s.reason).toBe('shared-429');
    // What they leave: (1,200 - 1,000 / 0.98) / 1,200 = 0.15 (750 in 45 s is 1,000 a minute).
    expect(s.factor).toBeGreaterThan(0.12);
    expect(s.factor).toBeLessThan(0.2);
  });

  it('yields while its own first requests of the window are counted, then lowers the share again at a 429', async () => {
    const b = proc();
    await b.acquire('post');
    // Its first sends 20 s ago, slow (1 a bucket), at the pace of the share it resumes at (0.6: 5.9 a bucket) from 10 s ago.
    await sent(20_000, (ago) => (ago > 10_000 ? 1 : 10));
    const crossedAt = Date.now();
    await refused(b, 400);
    expect((await total()).factor).toBeCloseTo(defaults.rateCrossKeep, 2);
    // Until those leave the service's window: a window (60 s) after the first bucket that holds that pace.
    const yieldEnd = Number(await share('yieldEnd'));
    expect(yieldEnd).toBeGreaterThan(crossedAt + 49_000);
    expect(yieldEnd).toBeLessThan(crossedAt + 52_000);

    // Another 429 of that time (another reset, as a sliding window's or a token bucket's are), while the hold lasts
    // (a request in flight): the hold stands, no longer, and no lower share.
    await new Promise((r) => setTimeout(r, 1_000));
    await refused(b, 400);
    expect((await total()).factor).toBeCloseTo(defaults.rateCrossKeep, 2);
    expect(await redis.pttl(keys.budgetHold('total'))).toBeLessThan(defaults.rateYieldStepMs - 800);
    // The probe after the hold refused (its hold ended half a second ago): twice the hold; no lower share.
    const holdEnded = async (agoMs: number) => {
      await redis.del(keys.budgetHold('total'));
      await redis.hset(keys.budgetShare('total'), 'yieldHoldUntil', Date.now() - agoMs);
      await refused(b, 400);
      expect((await total()).factor).toBeCloseTo(defaults.rateCrossKeep, 2);
      return redis.pttl(keys.budgetHold('total'));
    };
    expect(await holdEnded(500)).toBeGreaterThan(2 * defaults.rateYieldStepMs - 500);
    expect(await holdEnded(500)).toBeGreaterThan(4 * defaults.rateYieldStepMs - 500);
    // A 429 long after the last hold: one step again.
    const again = await holdEnded(10 * defaults.rateYieldStepMs);
    expect(again).toBeGreaterThan(defaults.rateYieldStepMs - 500);
    expect(again).toBeLessThanOrEqual(defaults.rateYieldStepMs);

    // Once its own requests leave the window (the yield's end passed), a 429 lowers the share as any other does.
    await redis.hset(keys.budgetShare('total'), 'yieldEnd', Date.now() - 1);
    await redis.del(keys.budgetHold('total'));
    await new Promise((r) => setTimeout(r, 1_000));
    await refused(b, 400);
    const after = await total();
    expect(after.factor).toBeLessThan(defaults.rateCrossKeep - 0.01);
    expect(after.reason).toBe('shared-429');
    expect(after.yieldsUntil).toBeNull();
    expect(shareReasonText(after)).not.toMatch(/yielding/);
    expect(await redis.pttl(keys.budgetHold('total'))).toBeLessThan(0);
  });

  it('a slow start crosses alike: its first 429 keeps part of its share and yields', async () => {
    const b = new RequestBudget({ redis, keys, budgets: TOTAL, shares: { floor: 0.1, start: 0.5, account: 'acme' } });
    await b.acquire('post');
    expect((await total()).reason).toBe('slow-start');
    await sent(10_000, () => 5);
    await refused(b, 300);
    const s = await total();
    expect(s.reason).toBe('shared-429');
    expect(s.factor).toBeCloseTo(0.5 * defaults.rateCrossKeep, 2);
    expect(await redis.pttl(keys.budgetHold('total'))).toBeGreaterThan(defaults.rateYieldStepMs - 500);
  });
});
