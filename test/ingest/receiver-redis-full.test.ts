import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { programKinds } from '../../jobs/kinds.js';
import { startReceiver, type Receiver } from '../../src/ingest/receiver.js';
import { fixedSigningKeys } from '../../src/ingest/signing-keys.js';
import { createLogger } from '../../src/log/logger.js';
import { createQueues, type QueueSet } from '../../src/queue/queues.js';
import { createRedis, redisKeys, type RedisConnection } from '../../src/redis/connection.js';
import { startRedisServer, type RedisServer } from '../../src/redis/embedded-server.js';
import { orderRecord } from '../helpers/order-records.js';
import { testJobs } from '../helpers/test-world.js';
import { keyOf, newSecret, push } from './push-sender.js';

const SECRET = newSecret();

/** A private redis-server (the test changes its maxmemory and stops it), with a receiver on it. */
describe('the push receiver when Redis cannot store', () => {
  let server: RedisServer;
  let redis: RedisConnection;
  let queues: QueueSet;
  let receiver: Receiver;

  beforeAll(async () => {
    server = await startRedisServer({ args: ['--maxmemory-policy', 'noeviction'] });
    redis = createRedis(server.url);
    await redis.ping();
    queues = createQueues({ connection: redis, prefix: 'full', jobs: testJobs, streams: ['orders'] });
    receiver = await startReceiver({
      redis,
      queues,
      kinds: programKinds,
      keys: redisKeys('full'),
      signing: fixedSigningKeys([keyOf(SECRET)]),
      port: 0,
      logger: createLogger({ level: 'silent' }),
      limits: { storeTimeoutMs: 2_000, retryAfterSeconds: 7 },
    });
  });
  afterAll(async () => {
    await receiver?.close();
    await queues?.close();
    redis?.disconnect();
    await server?.stop();
  });

  it('answers 503 with Retry-After while Redis refuses writes, stores nothing, and takes the retry once it has room', async () => {
    expect((await push(receiver.url, 'orders', orderRecord('FULL-0'), { secrets: [SECRET] })).status).toBe(202);
    const used = Number(/used_memory:(\d+)/.exec(await (redis as Redis).info('memory'))![1]);
    await redis.config('SET', 'maxmemory', String(used - 256 * 1024));
    const refused = await push(receiver.url, 'orders', orderRecord('FULL-1'), { secrets: [SECRET], id: 'msg_full_1' });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('7');
    expect(refused.body.reason).toMatch(/^OOM command not allowed/);
    expect(await queues.get('orders').getJobCounts('waiting')).toEqual({ waiting: 1 });
    await redis.config('SET', 'maxmemory', '0');
    const retried = await push(receiver.url, 'orders', orderRecord('FULL-1'), { secrets: [SECRET], id: 'msg_full_1' });
    expect(retried.status).toBe(202);
    expect(retried.body).toMatchObject({ queued: 1 });
  });

  it('answers 503 at once while Redis is away, and its /healthz says so', async () => {
    await server.stop();
    const started = Date.now();
    const a = await push(receiver.url, 'orders', orderRecord('AWAY-1'), { secrets: [SECRET] });
    expect(a.status).toBe(503);
    expect(a.body.reason).toMatch(/^Redis is not connected/);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect((await fetch(`${receiver.url}/healthz`)).status).toBe(503);
  });
});
