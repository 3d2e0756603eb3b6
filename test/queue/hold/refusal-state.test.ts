import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimAlert, closeBreaker, isPaused, readBreaker, recordRefusal, recordSuccess } from '../../../src/queue/hold/refusal-state.js';
import { redisKeys, type RedisKeys } from '../../../src/redis/connection.js';
import { connect, deletePrefix, uniquePrefix } from '../../helpers/redis.js';

let redis: Redis;
let prefix: string;
let keys: RedisKeys;

beforeEach(() => {
  redis = connect();
  prefix = uniquePrefix('breaker');
  keys = redisKeys(prefix);
});
afterEach(async () => {
  await deletePrefix(redis, prefix);
  redis.disconnect();
});

const refuse = (jobId: string, threshold = 3, stream = 'orders') =>
  recordRefusal(redis, keys, stream, {
    threshold,
    code: 'UNAUTHORIZED',
    reason: `[UNAUTHORIZED] POST /acme/api/order answered 401 (${jobId})`,
    jobId,
    now: Date.parse('2026-01-02T03:04:05Z'),
  });

describe('stream breaker', () => {
  describe('when refusals come in a row', () => {
    it('stays closed below the threshold and opens at it, saying since when and why', async () => {
      expect(await refuse('a')).toEqual({ state: 'closed', refusals: 1, pushbacks: 1 });
      expect(await refuse('b')).toEqual({ state: 'closed', refusals: 2, pushbacks: 1 });
      expect(await isPaused(redis, keys, 'orders')).toBe(false);
      expect(await refuse('c')).toEqual({ state: 'tripped', refusals: 3 });
      expect(await refuse('d')).toEqual({ state: 'open' });
      const b = await readBreaker(redis, keys, 'orders');
      expect(b).toMatchObject({
        stream: 'orders',
        paused: true,
        since: '2026-01-02T03:04:05.000Z',
        code: 'UNAUTHORIZED',
        refusals: 3,
        alerted: false,
      });
      expect(b.reason).toBe('[UNAUTHORIZED] POST /acme/api/order answered 401 (c)');
      expect(await isPaused(redis, keys, 'orders')).toBe(true);
    });

    it('opens once when many processes refuse at the same time', async () => {
      const outcomes = await Promise.all(Array.from({ length: 40 }, (_, i) => refuse(`job-${i}`, 10)));
      expect(outcomes.filter((o) => o.state === 'tripped')).toHaveLength(1);
      expect(outcomes.filter((o) => o.state === 'closed')).toHaveLength(9);
      expect(outcomes.filter((o) => o.state === 'open')).toHaveLength(30);
    });

    it("counts each job's own pushbacks", async () => {
      await refuse('a', 10);
      await refuse('b', 10);
      expect(await refuse('a', 10)).toEqual({ state: 'closed', refusals: 3, pushbacks: 2 });
    });

    it('keeps each stream apart', async () => {
      await refuse('a', 2, 'orders');
      await refuse('b', 2, 'orders');
      expect(await isPaused(redis, keys, 'orders')).toBe(true);
      expect(await isPaused(redis, keys, 'boms')).toBe(false);
      expect(await refuse('c', 2, 'boms')).toMatchObject({ state: 'closed', refusals: 1 });
    });
  });

  describe('when a job syncs between refusals', () => {
    it('starts the count again', async () => {
      await refuse('a');
      await refuse('b');
      await recordSuccess(redis, keys, 'orders');
      expect((await readBreaker(redis, keys, 'orders')).refusals).toBe(0);
      expect(await refuse('c')).toMatchObject({ state: 'closed', refusals: 1 });
    });

    it('does not close a breaker that is open', async () => {
      for (const id of ['a', 'b', 'c']) await refuse(id);
      await recordSuccess(redis, keys, 'orders');
      expect(await readBreaker(redis, keys, 'orders')).toMatchObject({ paused: true, refusals: 3 });
    });
  });

  describe('when resumed', () => {
    it('closes, and the count and every pushback start afresh', async () => {
      for (const id of ['a', 'b', 'c']) await refuse(id);
      const before = await closeBreaker(redis, keys, 'orders');
      expect(before).toMatchObject({ paused: true, code: 'UNAUTHORIZED' });
      expect(await readBreaker(redis, keys, 'orders')).toMatchObject({ paused: false, since: null, reason: null, refusals: 0 });
      expect(await refuse('a')).toEqual({ state: 'closed', refusals: 1, pushbacks: 1 });
    });
  });

  describe('when the pause is told', () => {
    it('lets one teller claim it, once per pause', async () => {
      for (const id of ['a', 'b', 'c']) await refuse(id);
      const claims = await Promise.all([
        claimAlert(redis, keys, 'orders'),
        claimAlert(redis, keys, 'orders'),
        claimAlert(redis, keys, 'orders'),
      ]);
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect((await readBreaker(redis, keys, 'orders')).alerted).toBe(true);
      await closeBreaker(redis, keys, 'orders');
      for (const id of ['a', 'b', 'c']) await refuse(id);
      expect(await claimAlert(redis, keys, 'orders')).toBe(true);
    });
  });
});
