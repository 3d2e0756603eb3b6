import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitForIdle } from '../../src/queue/drain.js';
import { jobIdFor } from '../../src/queue/job-id.js';
import { addJobs, recordJob } from '../../src/queue/record-jobs.js';
import type { WorkerPool } from '../../src/queue/worker-pool.js';
import { done, order, queueWorld, sleep, testKind, type QueueWorld } from './support.js';
import { orderKind } from '../../jobs/orders/order-kind.js';

let w: QueueWorld;
const pools: WorkerPool[] = [];

beforeEach(async () => {
  w = await queueWorld('pool');
});
afterEach(async () => {
  for (const p of pools.splice(0)) await p.close(100);
  await w.close();
});

const q = () => w.queues.get('orders');

async function startPool(runMs: number, timing: { lockDurationMs?: number; stalledIntervalMs?: number } = {}) {
  const runs: string[] = [];
  const pool = await w.startPool(
    [
      testKind('orders', async (record) => {
        runs.push(record.orderId);
        await sleep(runMs);
        return done();
      }),
    ],
    timing,
  );
  pools.push(pool);
  return { pool, runs };
}

async function enqueueOne(): Promise<string> {
  await addJobs(q(), w.redis, [recordJob(orderKind, order('WEB-1'), 'feed').job], orderKind);
  return jobIdFor(orderKind, order('WEB-1'));
}

async function whenActive(pool: WorkerPool): Promise<void> {
  while (pool.active() === 0) await sleep(10);
}

describe('worker pool', () => {
  describe('when closed while a job is running', () => {
    it('lets the job finish within the grace period: completed, not left locked', async () => {
      const { pool } = await startPool(700);
      const id = await enqueueOne();
      await whenActive(pool);
      const started = Date.now();
      expect(await pool.close(5_000)).toEqual({ forced: false });
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(await (await q().getJob(id))?.getState()).toBe('completed');
      expect(await w.redis.exists(`${q().toKey(id)}:lock`)).toBe(0);
      expect(await w.redis.exists(w.keys.lock('orders', 'WEB-1'))).toBe(0);
    });

    it('takes no new job once closing', async () => {
      const { pool, runs } = await startPool(300);
      await enqueueOne();
      await whenActive(pool);
      const closing = pool.close(5_000);
      await addJobs(q(), w.redis, [recordJob(orderKind, order('WEB-2'), 'feed').job], orderKind);
      await closing;
      expect(runs).toEqual(['WEB-1']);
      expect(await q().getWaitingCount()).toBe(1);
    });
  });

  describe('when a job outlives the grace period', () => {
    it('force-closes, and the job is taken back by another worker once its lock expires', async () => {
      const timing = { lockDurationMs: 400, stalledIntervalMs: 200 };
      const first = await startPool(1_200, timing);
      const id = await enqueueOne();
      await whenActive(first.pool);
      expect(await first.pool.close(100)).toEqual({ forced: true });
      expect(await (await q().getJob(id))?.getState()).toBe('active');

      const second = await startPool(10, timing);
      await waitForIdle([q()], { pollMs: 50 });
      const job = await q().getJob(id);
      expect(await job?.getState()).toBe('completed');
      expect(second.runs).toEqual(['WEB-1']);
    });
  });

  describe('when the workers running a job die twice in a row', () => {
    it('takes it back both times, and the third worker completes it', async () => {
      const timing = { lockDurationMs: 400, stalledIntervalMs: 200 };
      const id = await enqueueOne();
      for (let i = 0; i < 2; i++) {
        // A forced close stops renewing the lock, as a killed process does.
        const dying = await startPool(1_500, timing);
        await whenActive(dying.pool);
        expect(await dying.pool.close(50)).toEqual({ forced: true });
      }
      const last = await startPool(10, timing);
      await waitForIdle([q()], { pollMs: 50 });
      const job = await q().getJob(id);
      expect(job?.failedReason).toBeUndefined();
      expect(await job?.getState()).toBe('completed');
      expect(last.runs).toEqual(['WEB-1']);
    });
  });
});
