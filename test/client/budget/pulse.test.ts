import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RequestBudget } from '../../../src/client/budget/budget.js';
import { redisKeys, type RedisKeys } from '../../../src/redis/connection.js';
import { connect, deletePrefix, uniquePrefix } from '../../helpers/redis.js';

/** A total of 1,200 a minute: a slot every 51 ms at the full share (headroom 0.98). */
const TOTAL = { postPerMinute: 6000, getPerMinute: 6000, collectionPerHour: 3600, requestsPerMinute: 1200, headroom: 0.98 };
const SLOT_MS = 60_000 / (1200 * 0.98);

/**
 * Pulses (docs/budget-start.md, "Pulses"): while a lane's share is read from 429s alone, `pulse` of its slots go
 * together, at the same rate, so that a token bucket the others drain refuses this program's second request of a
 * pulse; with headers on every answer, or pulse 1, the slots stay evenly spaced. Real Redis, the budget's own script.
 */
// Each test times slots of 51 ms on the machine's clock: a tolerance of half a slot (a request past it goes with the next
// pulse, by design) is what a test file beside two others on 2 cores sometimes misses (6 of 10 pulses filled, once in
// CI). So a test runs again up to twice; a broken pulse fails every time.
describe('pulses while the share is read from 429s alone', { retry: 2 }, () => {
  let redis: Redis;
  let prefix: string;
  let keys: RedisKeys;

  beforeEach(async () => {
    redis = connect();
    prefix = uniquePrefix('pulse');
    keys = redisKeys(prefix);
  });
  afterEach(async () => {
    await deletePrefix(redis, prefix);
    await redis.quit();
  });

  /** A process at the full share (start 1), or a slow start's (start 0.5: a share made by acquire, pulsing). */
  const proc = (pulse: number, start = 1) =>
    new RequestBudget({ redis, keys, budgets: TOTAL, shares: { floor: 0.1, start, account: 'acme', pulse } });
  /** The share as the share script leaves it after a quiet answer with headers on 429s only (pulse on). */
  const readFrom429s = async (b: RequestBudget) => {
    await b.observe('post', 200, {});
    expect(await redis.hget(keys.budgetShare('total'), 'pulse')).toBe('1');
  };

  /** `n` requests of `callers` callers at once, each acquiring again as soon as the last went: the send times. */
  const sends = async (b: RequestBudget, n: number, callers: number, gapMs = 0) => {
    const at: number[] = [];
    await Promise.all(
      Array.from({ length: callers }, async () => {
        while (at.length < n) {
          await b.acquire('post');
          at.push(Date.now());
          if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
        }
      }),
    );
    return at.slice(0, n).sort((x, y) => x - y);
  };
  const gaps = (at: number[]) => at.slice(1).map((t, i) => t - at[i]!);

  it('many callers: the slots go two at a time, a pulse every two slots, at the same rate', async () => {
    const b = proc(2);
    await b.acquire('post');
    await readFrom429s(b);
    const at = await sends(b, 24, 6);
    const g = gaps(at);
    // Within a pulse, back to back; between pulses, two slots.
    const tight = g.filter((x) => x < SLOT_MS / 2).length;
    const wide = g.filter((x) => x > 1.5 * SLOT_MS).length;
    expect(tight).toBeGreaterThanOrEqual(10);
    expect(wide).toBeGreaterThanOrEqual(10);
    // The same rate: 23 slots' time, give or take one pulse.
    expect(at.at(-1)! - at[0]!).toBeGreaterThan(21 * SLOT_MS);
    expect(at.at(-1)! - at[0]!).toBeLessThan(25 * SLOT_MS);
  });

  it('one caller at a time, each request after the last was answered: pulses filled, the full rate', async () => {
    const b = proc(2);
    await b.acquire('post');
    await readFrom429s(b);
    const at = await sends(b, 20, 1, 5);
    expect(at.at(-1)! - at[0]!).toBeLessThan(21 * SLOT_MS);
    expect(gaps(at).filter((x) => x < SLOT_MS / 2).length).toBeGreaterThanOrEqual(8);
  });

  it("a fresh process's slow start pulses from its first request, at its share's rate", async () => {
    const b = proc(2, 0.5);
    const at = await sends(b, 12, 4);
    expect(await redis.hget(keys.budgetShare('total'), 'pulse')).toBe('1');
    expect(gaps(at).filter((x) => x < SLOT_MS).length).toBeGreaterThanOrEqual(5);
    // At half the budget: a slot every 102 ms.
    expect(at.at(-1)! - at[0]!).toBeGreaterThan(9 * 2 * SLOT_MS);
  });

  it('pulse 1, or headers on every answer: evenly spaced', async () => {
    const even = proc(1);
    await even.acquire('post');
    await readFrom429s(even);
    const g1 = gaps(await sends(even, 10, 4));
    expect(Math.min(...g1)).toBeGreaterThan(SLOT_MS * 0.7);

    await deletePrefix(redis, prefix);
    const told = proc(2);
    await told.acquire('post');
    await told.observe('post', 200, {
      'x-ratelimit-limit': '1200',
      'x-ratelimit-remaining': '1190',
      'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 30),
    });
    expect(await redis.hget(keys.budgetShare('total'), 'pulse')).toBe('0');
    const g2 = gaps(await sends(told, 10, 4));
    expect(Math.min(...g2)).toBeGreaterThan(SLOT_MS * 0.7);
  });
});
