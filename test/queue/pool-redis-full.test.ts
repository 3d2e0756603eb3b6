import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { orderKind } from '../../jobs/orders/order-kind.js';
import { recordJob } from '../../src/queue/record-jobs.js';
import type { WorkerPool } from '../../src/queue/worker-pool.js';
import { createRedis, type RedisConnection } from '../../src/redis/connection.js';
import { startRedisServer, type RedisServer } from '../../src/redis/embedded-server.js';
import { until } from '../kit/until.js';
import { done, order, queueWorld, sleep, testKind, type QueueWorld } from './support.js';

/**
 * Issue 56, through the real pool: in the chaos run (seed 53) Redis filled right after a restart, and work went on
 * 40 s after the raise. With jobs in wait, a worker woken by their marker had its fetch refused (BullMQ's moveToActive
 * moves the job with RPOPLPUSH, a write a full Redis refuses when nothing before it in the script freed memory), went
 * back to its blocking wait for a whole drainDelay (60 s, the default here too) with the marker gone, and nothing wrote
 * one once Redis took writes again. The pool must hand every record worker's refused fetch to a wake-up
 * (src/queue/wake-after-refusal.ts). A redis-server of the test's own, its maxmemory set to 1 byte (noeviction: every
 * write refused, as a full Redis answers).
 */
describe('worker pool against a Redis that fills while a job waits', () => {
  let server: RedisServer;
  let admin: RedisConnection;
  let w: QueueWorld;
  let pool: WorkerPool | undefined;

  beforeAll(async () => {
    server = await startRedisServer({ args: ['--maxmemory-policy', 'noeviction'] });
    admin = createRedis(server.url);
  }, 30_000);
  afterAll(async () => {
    admin?.disconnect();
    await server?.stop();
  });
  beforeEach(async () => {
    w = await queueWorld('pool-full', undefined, server.url);
  });
  afterEach(async () => {
    await admin.config('SET', 'maxmemory', '0');
    await pool?.close(100);
    await w.close();
  });

  it('takes a job up within seconds of Redis taking writes again, not a drainDelay later', async () => {
    pool = await w.startPool([testKind('orders', async () => done())], { concurrency: 1 });
    const q = w.queues.get('orders');
    // What the chaos run's workers met, made on purpose: the worker idle in its blocking wait, a job in wait, and Redis
    // full. The job is added while the queue is paused (no marker); then, Redis full, the pause is lifted and a marker
    // written by one script, whose first write frees memory (Redis takes a script's writes once it has made one).
    await sleep(500);
    await q.pause();
    const { job } = recordJob(orderKind, order('FULL-1'), 'feed');
    const added = await q.add(job.name, job.data, job.opts);
    await admin.config('SET', 'maxmemory', '1');
    expect(await admin.set(`${w.prefix}:probe`, 'x').catch((err: Error) => err.message)).toMatch(/^OOM/);
    // The worker takes the marker and asks for the job: Redis refuses that (BullMQ's moveToActive writes).
    const refused = async () => Number(/errorstat_OOM:count=(\d+)/.exec(await admin.info('errorstats'))?.[1] ?? 0);
    const before = await refused();
    await admin.eval("redis.call('HDEL', KEYS[1], 'paused'); redis.call('ZADD', KEYS[2], 0, '0')", 2, q.toKey('meta'), q.toKey('marker'));
    await until(async () => (await refused()) > before, 5_000, { what: "the worker's fetch refused" });
    await sleep(3_000);
    expect(await q.getJobState(added.id!)).toBe('waiting');
    await admin.config('SET', 'maxmemory', '0');
    const ms = await until(async () => (await q.getJobState(added.id!)) === 'completed', 15_000, {
      what: 'the job completed after the raise',
    });
    expect(ms).toBeLessThan(5_000);
  }, 40_000);
});
