import type { Job } from 'bullmq';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaults } from '../../config/defaults.js';
import { badRecordsKey, retainBadRecord } from '../../src/queue/bad-record-retention.js';
import { waitForIdle } from '../../src/queue/drain.js';
import { withFailureCode } from '../../src/queue/failure-code.js';
import type { JobResult } from '../../src/queue/job-context.js';
import { ConflictError } from '../../src/queue/job-errors.js';
import type { JobData } from '../../src/queue/queues.js';
import { addJobs, recordJob } from '../../src/queue/record-jobs.js';
import { done, order, queueWorld, sleep, testKind, type QueueWorld } from './support.js';
import { orderKind } from '../../jobs/orders/order-kind.js';

let w: QueueWorld;
beforeEach(async () => {
  w = await queueWorld('retention');
});
afterEach(async () => {
  await w.close();
});

const q = () => w.queues.get('orders');
/** A record that fails its shape check: a job that fails at once as BAD_RECORD. */
const bad = (n: number) => ({ orderId: `BAD-${n}`, origin: 'Main Warehouse', lines: [] });

describe('failed bad-record jobs', () => {
  describe('when more fail than BAD_RECORDS_KEEP', () => {
    it('keeps the newest ones only, and every other failed job', async () => {
      const kind = testKind('orders', async (record) => {
        if (record.orderId.startsWith('CONFLICT')) throw new ConflictError(`order ${record.orderId} differs`, 'compare it');
        return done();
      });
      const pool = await w.startPool([kind], { concurrency: 1, badRecords: { keep: 3, keepDays: 30 } });
      try {
        const records = [order('CONFLICT-1'), ...[1, 2, 3, 4, 5, 6].map(bad), order('CONFLICT-2'), order('WEB-1')];
        for (const r of records) {
          // One at a time, so "newest" is well defined.
          await addJobs(q(), w.redis, [recordJob(orderKind, r, 'feed').job], orderKind);
          await waitForIdle([q()], { pollMs: 20 });
          await sleep(5);
        }
        // The trim runs on the failed event, just after the job is failed.
        await sleep(200);
      } finally {
        await pool.close(1000);
      }
      const failed = (await q().getJobs(['failed'])).map((j) => String(j.failedReason).split(':')[0]).sort();
      expect(failed).toEqual([
        '[BAD_RECORD] record BAD-4',
        '[BAD_RECORD] record BAD-5',
        '[BAD_RECORD] record BAD-6',
        '[CONFLICT] order CONFLICT-1 differs',
        '[CONFLICT] order CONFLICT-2 differs',
      ]);
      expect(await w.redis.zcard(badRecordsKey(q()))).toBe(3);
      expect(await q().getCompletedCount()).toBe(1);
    });
  });

  describe('when one is older than BAD_RECORDS_KEEP_DAYS', () => {
    it('is removed at the next bad record, unless it was retried since', async () => {
      const ids: string[] = [];
      for (const n of [1, 2, 3]) {
        const { job } = recordJob(orderKind, bad(n), 'feed');
        ids.push(job.opts.jobId);
        await addJobs(q(), w.redis, [job], orderKind);
      }
      const pool = await w.startPool([testKind('orders', async () => done())], { badRecords: { keep: 100, keepDays: 1 } });
      await waitForIdle([q()], { pollMs: 20 });
      await pool.close(1000);
      await sleep(100);
      // BAD-2 was put back to work by an operator (here: moved back to waiting).
      await (await q().getJob(ids[1]!))!.retry('failed');
      const day = 24 * 3600 * 1000;
      const removed = await retainBadRecord(q(), w.redis, ids[2]!, { keep: 100, keepDays: 1 }, Date.now() + 2 * day);
      expect(removed).toBe(1);
      expect(await q().getJob(ids[0]!)).toBeUndefined();
      expect(await q().getJobState(ids[1]!)).toBe('waiting');
      expect(await q().getJobState(ids[2]!)).toBe('failed');
    });
  });

  describe('when a failure says BAD_RECORD', () => {
    it("goes by the failure's code, not by its text", async () => {
      const pool = await w.startPool([testKind('orders', async () => done())], { badRecords: { keep: 100, keepDays: 30 } });
      try {
        const worker = pool.workers.get('orders')!;
        const job = (id: string) => ({ id }) as Job<JobData, JobResult>;
        // What the runner throws, as BullMQ hands it on: only the code decides (a text alike, without it, does not).
        worker.emit('failed', job('by-text'), new Error('[BAD_RECORD] record WEB-1: lines: is empty'), 'active');
        worker.emit('failed', job('by-code'), withFailureCode(new Error('record WEB-2: lines: is empty'), 'BAD_RECORD'), 'active');
        await sleep(200);
        expect(await w.redis.zrange(badRecordsKey(q()), '0', '-1')).toEqual(['by-code']);
      } finally {
        await pool.close(1000);
      }
    });
  });
});

describe('job logs', () => {
  it('keep the newest lines only (one per attempt)', async () => {
    await addJobs(q(), w.redis, [recordJob(orderKind, order('WEB-LOG'), 'feed').job], orderKind);
    const [job] = await q().getJobs(['waiting']);
    expect(job!.opts.keepLogs).toBe(defaults.jobKeepLogs);
    for (let i = 1; i <= defaults.jobKeepLogs + 10; i++) await job!.log(`attempt ${i}`);
    const { logs, count } = await q().getJobLogs(job!.id!, 0, -1);
    expect(count).toBe(defaults.jobKeepLogs);
    expect(logs.at(-1)).toBe(`attempt ${defaults.jobKeepLogs + 10}`);
  });
});
