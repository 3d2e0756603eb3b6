import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LatencyMeter, sizeConcurrency } from '../../src/queue/concurrency-sizer.js';
import { addJobs, recordJob } from '../../src/queue/record-jobs.js';
import type { WorkerPool } from '../../src/queue/worker-pool.js';
import { done, order, queueWorld, sleep, testKind, type QueueWorld } from './support.js';
import { orderKind } from '../../jobs/orders/order-kind.js';

const bounds = { min: 8, max: 256 };

describe('sizing jobs at once', () => {
  it('follows rate × latency (with slack for the time between requests), within the bounds', () => {
    // 200 requests a second at 100 ms: 20 in flight, 40 with slack.
    expect(sizeConcurrency(200, 100, bounds)).toBe(40);
    // Twice the rate or twice the latency: twice the jobs.
    expect(sizeConcurrency(400, 100, bounds)).toBe(80);
    expect(sizeConcurrency(200, 200, bounds)).toBe(80);
    // A budget of 120 a minute needs one or two in flight: the floor keeps a few for jobs waiting on other things.
    expect(sizeConcurrency(2, 100, bounds)).toBe(8);
    expect(sizeConcurrency(10_000, 500, bounds)).toBe(256);
    // No budget at all: the ceiling.
    expect(sizeConcurrency(Infinity, 25, bounds)).toBe(256);
    expect(sizeConcurrency(200, 100, { min: 300, max: 50 })).toBe(50);
  });

  it('measures the latency of entity calls that were answered, not of collections or failed connections', () => {
    const m = new LatencyMeter(0.5);
    expect(m.ms()).toBeUndefined();
    m.record({ cls: 'post', status: 200, ms: 40 });
    m.record({ cls: 'collection', status: 200, ms: 30_000 });
    m.record({ cls: 'get', status: null, ms: 15_000 });
    expect(m.ms()).toBe(40);
    m.record({ cls: 'get', status: 404, ms: 60 });
    expect(m.ms()).toBe(50);
  });

  describe('a worker pool with sizing', () => {
    let w: QueueWorld;
    let pool: WorkerPool | undefined;
    beforeEach(async () => {
      w = await queueWorld('sizing');
    });
    afterEach(async () => {
      await pool?.close(100);
      await w.close();
    });

    it('raises and lowers the jobs it runs at once as the rate and latency change', async () => {
      const pace = { rate: 100, latency: 200 };
      let running = 0;
      let most = 0;
      pool = await w.startPool(
        [
          testKind('orders', async () => {
            most = Math.max(most, ++running);
            await sleep(150);
            running--;
            return done();
          }),
        ],
        {
          concurrency: 2,
          sizing: { pace: { ratePerSecond: () => pace.rate, latencyMs: () => pace.latency }, bounds: { min: 3, max: 30 }, everyMs: 50 },
        },
      );
      await addJobs(
        w.queues.get('orders'),
        w.redis,
        Array.from({ length: 60 }, (_, i) => recordJob(orderKind, order(`SIZE-${i}`), 'feed').job),
        orderKind,
      );
      // 100 a second at 200 ms: 40, capped at 30.
      for (let i = 0; i < 200 && pool.concurrency() !== 30; i++) await sleep(20);
      expect(pool.concurrency()).toBe(30);
      for (let i = 0; i < 200 && most <= 2; i++) await sleep(20);
      expect(most).toBeGreaterThan(2);
      // The budget's share drops (another client of the account spends it): fewer jobs at once.
      pace.rate = 5;
      for (let i = 0; i < 200 && pool.concurrency() !== 3; i++) await sleep(20);
      expect(pool.concurrency()).toBe(3);
    });
  });
});
