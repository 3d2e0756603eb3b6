import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis } from '../../src/redis/connection.js';
import { LockLostError, LockTimeoutError, takeLock, withRedisLock } from '../../src/redis/redis-lock.js';
import { connect, deletePrefix, redisUrl, uniquePrefix } from '../helpers/redis.js';
import { replyHoldProxy } from '../helpers/reply-hold.js';
import { until } from '../kit/until.js';

let redis: Redis;
let prefix: string;

beforeAll(() => {
  redis = connect();
  prefix = uniquePrefix('stock-lock');
});
afterAll(async () => {
  await deletePrefix(redis, prefix);
  await redis.quit();
});

describe('location lock', () => {
  describe('when two jobs want the same location', () => {
    it('runs them one after the other, never interleaved', async () => {
      const key = `${prefix}:lock:a`;
      const events: string[] = [];
      const job = (name: string) =>
        withRedisLock(
          redis,
          key,
          async () => {
            events.push(`${name}:start`);
            await new Promise((r) => setTimeout(r, 80));
            events.push(`${name}:end`);
          },
          { pollMs: 10 },
        );
      await Promise.all([job('one'), job('two')]);
      expect(events).toHaveLength(4);
      expect(events[0]!.split(':')[0]).toBe(events[1]!.split(':')[0]);
      expect(events[2]!.split(':')[0]).toBe(events[3]!.split(':')[0]);
      expect(await redis.exists(key)).toBe(0);
    });
  });

  describe('when the lock stays taken', () => {
    it('gives up after the wait with a retryable lock time-out', async () => {
      const key = `${prefix}:lock:b`;
      await redis.set(key, 'someone-else', 'PX', 5_000);
      await expect(withRedisLock(redis, key, async () => 1, { waitMs: 100, pollMs: 10 })).rejects.toBeInstanceOf(LockTimeoutError);
    });
  });

  describe('when a holder outlives the lock life', () => {
    it('keeps the lock alive by renewing it', async () => {
      const key = `${prefix}:lock:c`;
      const ttl = await withRedisLock(
        redis,
        key,
        async () => {
          await new Promise((r) => setTimeout(r, 350));
          return redis.pttl(key);
        },
        { ttlMs: 150 },
      );
      expect(ttl).toBeGreaterThan(0);
    });
    it('tells the holder when another process took it over', async () => {
      const key = `${prefix}:lock:d`;
      await expect(
        withRedisLock(
          redis,
          key,
          async (lock) => {
            await redis.set(key, 'other-holder');
            await new Promise((r) => setTimeout(r, 150));
            lock.assertHeld();
          },
          { ttlMs: 90 },
        ),
      ).rejects.toBeInstanceOf(LockLostError);
      expect(await redis.get(key)).toBe('other-holder');
    });
  });

  describe("when the answer to its take comes back after the lock's life (the holder paused in between)", () => {
    it('tells the holder the lock is lost before its first write, and whoever took it meanwhile keeps it', async () => {
      const key = `${prefix}:lock:e`;
      const proxy = await replyHoldProxy(redisUrl());
      const paused = createRedis(proxy.url);
      try {
        await paused.ping();
        proxy.hold();
        const taking = takeLock(paused, key, { ttlMs: 150 });
        // The take ran in Redis at once; its answer waits, as for a process stopped right after sending it.
        await until(async () => (await redis.exists(key)) === 1, 5_000, { everyMs: 5 });
        await until(async () => (await redis.set(key, 'other-holder', 'PX', 5_000, 'NX')) === 'OK', 5_000, { everyMs: 10 });
        proxy.release();
        const lock = await taking;
        expect(lock).toBeDefined();
        expect(() => lock!.assertHeld()).toThrow(LockLostError);
        await lock!.release();
        expect(await redis.get(key)).toBe('other-holder');
      } finally {
        paused.disconnect();
        await proxy.close();
      }
    });
  });
});
