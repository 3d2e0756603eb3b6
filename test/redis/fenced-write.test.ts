import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisConnection } from '../../src/redis/connection.js';
import { FencedWrite } from '../../src/redis/fenced-write.js';
import { LockLostError, withRedisLocks } from '../../src/redis/redis-lock.js';
import { connectTarget, deletePrefix, uniquePrefix } from '../helpers/redis.js';

describe('a write under locks (FencedWrite)', () => {
  let redis: RedisConnection;
  const prefix = uniquePrefix('fenced');
  const locks = [`${prefix}:lock:location:a`, `${prefix}:lock:location:b`];
  beforeAll(() => {
    redis = connectTarget();
  });
  afterAll(async () => {
    await deletePrefix(redis, prefix);
    redis.disconnect();
  });

  it('lands whole while every lock is the holder’s, a large hash included', async () => {
    const fields = Object.fromEntries(Array.from({ length: 2_500 }, (_, i) => [`f${i}`, String(i)]));
    await withRedisLocks(redis, locks, (lock) =>
      new FencedWrite(lock)
        .hset(`${prefix}:plan`, fields)
        .call('PEXPIRE', `${prefix}:plan`, 60_000)
        .call('SADD', `${prefix}:open`, 'CNT-1')
        .each('HDEL', `${prefix}:plan`, ['f0', 'f1'])
        .exec(redis),
    );
    expect(await redis.hlen(`${prefix}:plan`)).toBe(2_498);
    expect(await redis.hget(`${prefix}:plan`, 'f2499')).toBe('2499');
    expect(await redis.pttl(`${prefix}:plan`)).toBeGreaterThan(0);
    expect(await redis.smembers(`${prefix}:open`)).toEqual(['CNT-1']);
  });

  it('writes nothing once one of its locks is another’s, and says which', async () => {
    const err = await withRedisLocks(redis, locks, async (lock) => {
      // Another holder, as after this one's life ran out unseen (its clock still says held).
      await redis.set(locks[1]!, 'another-holder', 'PX', 5_000);
      return new FencedWrite(lock).hset(`${prefix}:late`, { state: 'planned' }).call('SADD', `${prefix}:late-open`, 'CNT-2').exec(redis);
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LockLostError);
    expect((err as LockLostError).key).toBe(locks[1]);
    expect(await redis.exists(`${prefix}:late`, `${prefix}:late-open`)).toBe(0);
    expect(await redis.get(locks[1]!)).toBe('another-holder');
  });
});
