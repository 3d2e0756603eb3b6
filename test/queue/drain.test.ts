import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pendingCounts, summarize, waitForIdle } from '../../src/queue/drain.js';
import { addJobs, recordJob } from '../../src/queue/record-jobs.js';
import { ConflictError } from '../../src/queue/job-errors.js';
import { done, order, queueWorld, sleep, testKind, type QueueWorld } from './support.js';
import { orderKind } from '../../jobs/orders/order-kind.js';
import { programKinds } from '../../jobs/kinds.js';

let w: QueueWorld;
beforeEach(async () => {
  w = await queueWorld('drain');
});
afterEach(async () => {
  await w.close();
});

const q = () => w.queues.get('orders');

describe('drain', () => {
  describe('when a job waits to be retried', () => {
    it('is not idle until the delayed job is gone', async () => {
      await q().add('orders', { record: order('WEB-1'), source: 'feed' }, { jobId: 'orders-WEB-1-x', delay: 300 });
      expect(await pendingCounts([q()])).toEqual({ orders: 1 });
      let idleAt = 0;
      const idle = waitForIdle([q()], { pollMs: 20 }).then(() => (idleAt = Date.now()));
      await sleep(150);
      expect(idleAt).toBe(0);
      await q().remove('orders-WEB-1-x');
      await idle;
      expect(idleAt).toBeGreaterThan(0);
    });

    it('stops waiting when aborted', async () => {
      await addJobs(q(), w.redis, [recordJob(orderKind, order('WEB-1'), 'feed').job], orderKind);
      const ac = new AbortController();
      setTimeout(() => ac.abort(new Error('stop')), 50);
      await expect(waitForIdle([q()], { pollMs: 10, signal: ac.signal })).rejects.toThrow('stop');
    });
  });

  describe('when summing up', () => {
    it('counts the jobs finished since the given time, with each failure', async () => {
      await addJobs(
        q(),
        w.redis,
        [order('WEB-1'), order('WEB-2'), order('WEB-3')].map((r) => recordJob(orderKind, r, 'feed').job),
        orderKind,
      );
      const since = Date.now();
      const pool = await w.startPool([
        testKind('orders', async (record) => {
          if (record.orderId === 'WEB-3') throw new ConflictError('WEB-3 differs in the service', 'Settle it.');
          return done();
        }),
      ]);
      await waitForIdle([q()], { pollMs: 20 });
      await pool.close(1_000);

      const all = await summarize([q()], { streams: programKinds, redis: w.redis, since });
      expect(all.orders).toEqual({
        completed: 2,
        skipped: 0,
        failed: [{ id: expect.stringMatching(/^orders-WEB-3-/), key: 'WEB-3', reason: '[CONFLICT] WEB-3 differs in the service' }],
      });
      const later = await summarize([q()], { streams: programKinds, redis: w.redis, since: Date.now() + 1_000 });
      expect(later.orders).toEqual({ completed: 0, skipped: 0, failed: [] });
    });
  });
});
