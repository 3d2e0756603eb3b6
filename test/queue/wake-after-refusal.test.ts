import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServer } from '../../src/redis/embedded-server.js';
import { createRedis } from '../../src/redis/connection.js';
import { wakeAfterRefusal } from '../../src/queue/wake-after-refusal.js';
import { until } from '../kit/until.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Issue 56 (the chaos run's Redis full right after a restart: work went on 40 s after the raise). A private
 * redis-server, whose maxmemory the test lowers far under what it uses (every write OOM, as a full Redis answers),
 * and a real BullMQ worker with an idle wait of 30 s (the program's is 60 s): the state a refused fetch leaves, a job
 * ready and the worker in its blocking wait with no marker to end it, is made by adding the job to a paused queue and
 * lifting the pause by hand (BullMQ's resume would write the marker).
 */
describe('a worker that Redis refused a write to', () => {
  let server: RedisServer;
  let admin: Redis;
  beforeAll(async () => {
    server = await startRedisServer();
    admin = createRedis(server.url);
  }, 30_000);
  afterAll(async () => {
    admin?.disconnect();
    await server?.stop();
  });

  async function fullThenRaised(wake: boolean): Promise<number | null> {
    const prefix = `wake${wake ? 1 : 0}`;
    const conn = createRedis(server.url);
    const queue = new Queue('orders', { connection: conn, prefix });
    const done: number[] = [];
    const worker = new Worker('orders', async () => void done.push(Date.now()), { connection: conn, prefix, drainDelay: 30 });
    const woken = wakeAfterRefusal(worker, conn, 200);
    try {
      await worker.waitUntilReady();
      await sleep(300);
      await queue.pause();
      await queue.add('o', {});
      await admin.hdel(queue.toKey('meta'), 'paused');
      await sleep(300);
      expect(done).toEqual([]);
      await admin.config('SET', 'maxmemory', '1');
      // A write Redis refuses, as the worker's own were in the chaos run.
      const refused = await conn.set(`${prefix}:x`, 'y').then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(String(refused)).toMatch(/^ReplyError: OOM/);
      if (wake) woken(refused);
      await sleep(1_000);
      expect(done).toEqual([]);
      await admin.config('SET', 'maxmemory', '0');
      const raised = Date.now();
      return await until(() => done.length > 0, 8_000)
        .then(() => done[0]! - raised)
        .catch(() => null);
    } finally {
      await admin.config('SET', 'maxmemory', '0');
      await worker.close(true);
      await queue.close();
      conn.disconnect();
    }
  }

  it('is woken as soon as Redis takes writes again, not its drainDelay later', async () => {
    const ms = await fullThenRaised(true);
    expect(ms).not.toBeNull();
    expect(ms!).toBeLessThan(2_000);
  }, 30_000);

  it('without the wake-up, waits out its drainDelay (what the test catches)', async () => {
    expect(await fullThenRaised(false)).toBeNull();
  }, 30_000);
});
