import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis, redisKeys, type RedisConnection } from '../../../src/redis/connection.js';
import { takeLease, type JobLease } from '../../../src/queue/lease/job-lease.js';
import { LeaseLostError } from '../../../src/queue/lease/lease-lost.js';
import { connectTarget, deletePrefix, redisUrl, uniquePrefix } from '../../helpers/redis.js';
import { replyHoldProxy } from '../../helpers/reply-hold.js';
import { until } from '../../kit/until.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the job lease', () => {
  let redis: RedisConnection;
  const prefix = uniquePrefix('lease');
  const keys = redisKeys(prefix);
  let n = 0;
  const lease = (o: { key?: string; jobId?: string; ttlMs?: number } = {}) =>
    takeLease(redis, keys, { stream: 'orders', key: o.key ?? `K-${++n}`, jobId: o.jobId ?? 'job-1', ttlMs: o.ttlMs ?? 5_000 });
  beforeAll(() => {
    redis = connectTarget();
  });
  afterAll(async () => {
    await deletePrefix(redis, prefix);
    redis.disconnect();
  });

  it('is refused while another job holds the record, and free once that one releases it', async () => {
    const first = (await lease({ key: 'BUSY', jobId: 'a' }))!;
    expect(first.version).toBe(1);
    expect(await lease({ key: 'BUSY', jobId: 'b' })).toBeUndefined();
    await first.release(true);
    const second = (await lease({ key: 'BUSY', jobId: 'b' }))!;
    expect(second.version).toBe(2);
    await second.release(true);
  });

  it('is taken over by the same job taken again, and the old execution is fenced out before its write', async () => {
    const zombie = (await lease({ key: 'AGAIN' }))!;
    await zombie.fence('createOrder');
    const newer = (await lease({ key: 'AGAIN' }))!;
    expect(newer.version).toBe(zombie.version + 1);
    // The zombie's intent was left: the newer execution finds it.
    expect(newer.found).toMatchObject({ call: 'createOrder', jobId: 'job-1' });
    await expect(zombie.fence('createShipment')).rejects.toBeInstanceOf(LeaseLostError);
    // Refused, it recorded nothing: the intent is still the zombie's first one.
    expect(await redis.hget(keys.fence('orders', 'AGAIN'), 'call')).toBe('createOrder');
    await newer.fence('createShipment');
    // The zombie's release leaves the newer lease alone.
    await zombie.release(true);
    await newer.fence('completeOrder');
    await newer.release(true);
    expect(await redis.exists(keys.lease('orders', 'AGAIN'))).toBe(0);
    expect(await redis.hget(keys.fence('orders', 'AGAIN'), 'call')).toBeNull();
  });

  it('keeps the intent when the execution did not run to its end, for the next one to settle', async () => {
    const first = (await lease({ key: 'KEPT' }))!;
    await first.fence('createVariance');
    await first.release(false);
    const next = (await lease({ key: 'KEPT' }))!;
    expect(next.found?.call).toBe('createVariance');
    await next.release(true);
    expect((await lease({ key: 'KEPT' }))!.found).toBeUndefined();
  });

  it('is renewed while held, and once expired under a frozen holder its fence refuses', async () => {
    const held = (await lease({ key: 'RENEWED', ttlMs: 300 }))!;
    await sleep(700);
    await held.fence('updateProduct');
    held.assertHeld();
    await held.release(true);
    const expired = (await lease({ key: 'EXPIRED', ttlMs: 300 }))!;
    // As a frozen process: its renewals stop (the timer is cleared), the lease expires in Redis.
    await expired.release(false).catch(() => undefined);
    await redis.del(keys.lease('orders', 'EXPIRED'));
    await expect(expired.fence('updateProduct')).rejects.toBeInstanceOf(LeaseLostError);
  });

  it('renews the lease for its whole life as a fence passes, whatever the renewals did (a write sent within the bound is inside it)', async () => {
    const l = (await lease({ key: 'FENCE-RENEWS', ttlMs: 5_000 }))!;
    // As if the renewals' timer had fallen behind: a second of the lease left.
    await redis.pexpire(keys.lease('orders', 'FENCE-RENEWS'), 1_000);
    await l.fence('createShipment');
    expect(await redis.pttl(keys.lease('orders', 'FENCE-RENEWS'))).toBeGreaterThan(4_000);
    await l.release(true);
  });

  it('makes the fence again only when the last one is older than its bound (a third of the life)', async () => {
    const l = (await lease({ key: 'BOUND', ttlMs: 600 }))!;
    await l.fence('createShipment');
    const at = await redis.hget(keys.fence('orders', 'BOUND'), 'at');
    await l.refence('createShipment');
    expect(await redis.hget(keys.fence('orders', 'BOUND'), 'at')).toBe(at);
    await sleep(250);
    await l.refence('createShipment');
    expect(Number(await redis.hget(keys.fence('orders', 'BOUND'), 'at'))).toBeGreaterThan(Number(at));
    await l.release(true);
  });
  it('is known lost when the answer to its take comes back after its life (the execution paused in between)', async () => {
    const proxy = await replyHoldProxy(redisUrl());
    const paused = createRedis(proxy.url);
    try {
      await paused.ping();
      proxy.hold();
      const taking = takeLease(paused, keys, { stream: 'orders', key: 'LATE-ANSWER', jobId: 'job-1', ttlMs: 150 });
      // The take ran in Redis at once; its answer waits. Meanwhile the lease expires and the job taken again takes it.
      await until(async () => (await redis.exists(keys.lease('orders', 'LATE-ANSWER'))) === 1, 5_000, { everyMs: 5 });
      let newer: JobLease | undefined;
      await until(async () => (newer = await lease({ key: 'LATE-ANSWER', jobId: 'job-2', ttlMs: 5_000 })) !== undefined, 5_000, {
        everyMs: 10,
      });
      proxy.release();
      const late = (await taking)!;
      expect(() => late.assertHeld()).toThrow(LeaseLostError);
      await expect(late.fence('createVariance')).rejects.toBeInstanceOf(LeaseLostError);
      await late.release(false);
      newer!.assertHeld();
      await newer!.release(true);
    } finally {
      paused.disconnect();
      await proxy.close();
    }
  });
});
