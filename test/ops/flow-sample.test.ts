import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { flowSamplesKey, sampleFlow } from '../../src/ops/flow-metrics.js';
import { redisKeys } from '../../src/redis/connection.js';
import { connect, deletePrefix, uniquePrefix } from '../helpers/redis.js';

let redis: Redis;
let prefix: string;

beforeEach(() => {
  redis = connect();
  prefix = uniquePrefix('flow');
});
afterEach(async () => {
  await deletePrefix(redis, prefix);
  await redis.quit();
});

describe("the dashboard's flow sample", () => {
  it('writes the minute’s sample when it changes, and nothing when a look finds it as it is (issue 36)', async () => {
    const key = flowSamplesKey(prefix);
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    await sampleFlow(redis, prefix, ['orders'], minute + 1_000);
    const first = await redis.zrangebyscore(key, minute, minute);
    expect(first).toHaveLength(1);
    expect(JSON.parse(first[0]!)).toMatchObject({ t: minute, requests: { post: 0, get: 0, collection: 0 } });
    // A write sets the key's life again: without one, it stays without.
    await redis.persist(key);
    await sampleFlow(redis, prefix, ['orders'], minute + 16_000);
    expect(await redis.pttl(key)).toBe(-1);
    expect(await redis.zrangebyscore(key, minute, minute)).toEqual(first);
    // Requests counted meanwhile: the sample changes and is written.
    await redis.hincrby(redisKeys(prefix).budgetStats(), 'requests:post', 3);
    await sampleFlow(redis, prefix, ['orders'], minute + 31_000);
    expect(await redis.pttl(key)).toBeGreaterThan(0);
    const now = await redis.zrangebyscore(key, minute, minute);
    expect(now).toHaveLength(1);
    expect(JSON.parse(now[0]!)).toMatchObject({ requests: { post: 3 } });
  });
});
