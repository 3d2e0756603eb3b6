import { Queue } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';
import { orderKeys } from '../../jobs/orders/order-keys.js';
import { ProgressStore } from '../../jobs/orders/order-progress.js';
import { recordFailureGroup } from '../../src/queue/failure-group.js';
import { recordJobOptions } from '../../src/queue/queues.js';
import { redisKeys } from '../../src/redis/connection.js';
import { connect, deletePrefix, uniquePrefix } from '../helpers/redis.js';

describe('the lives of per-record keys', () => {
  const redis = connect();
  const prefix = uniquePrefix('key-lives');
  afterAll(async () => {
    await deletePrefix(redis, prefix);
    redis.disconnect();
  });

  describe("when an order's progress is written after its hash expired", () => {
    it('gives the recreated hash its life again', async () => {
      const key = orderKeys(redisKeys(prefix)).progress('KL-1');
      await new ProgressStore(redis, key, 3600).save({ status: 'created', orderUrl: '/demo/api/order/1' });
      expect(await redis.hget(key, 'step')).toBe('created');
      const ttl = await redis.ttl(key);
      expect(ttl).toBeGreaterThan(3500);
      expect(ttl).toBeLessThanOrEqual(3600);
    });

    it('keeps the life started by the first write', async () => {
      const key = orderKeys(redisKeys(prefix)).progress('KL-2');
      const store = new ProgressStore(redis, key, 3600);
      await store.save({ pending: 'create-order' }, true);
      await redis.expire(key, 100);
      await store.save({ status: 'created' });
      expect(await redis.ttl(key)).toBeLessThanOrEqual(100);
    });
  });

  describe('when a failing job was removed before its failure group is written', () => {
    it('leaves no hash behind', async () => {
      const job = { id: 'orders-KL-3-000000000000', queueQualifiedName: `${prefix}:orders` };
      await recordFailureGroup(redis, job, 'lines.0.productId: unknown product');
      expect(await redis.exists(`${prefix}:orders:${job.id}`)).toBe(0);
    });
  });

  describe('when a record job fails attempt after attempt', () => {
    it('keeps the newest error stacks only', async () => {
      const queue = new Queue('orders', { connection: redis, prefix, defaultJobOptions: recordJobOptions({ attempts: 12 }) });
      const job = await queue.add('o', { record: {}, source: 'feed' }, { jobId: 'orders-KL-4-000000000000' });
      expect(job.opts.stackTraceLimit).toBe(3);
      await queue.close();
    });
  });
});
