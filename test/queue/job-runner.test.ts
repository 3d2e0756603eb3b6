import type { Job } from 'bullmq';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RateLimitedError, TransientError } from '../../src/client/answers/errors.js';
import { waitForIdle } from '../../src/queue/drain.js';
import { ConflictError } from '../../src/queue/job-errors.js';
import { jobIdFor } from '../../src/queue/job-id.js';
import { addJobs, recordJob } from '../../src/queue/record-jobs.js';
import type { WorkerPool } from '../../src/queue/worker-pool.js';
import { done, order, queueWorld, sleep, testKind, type QueueWorld } from './support.js';
import { orderKind } from '../../jobs/orders/order-kind.js';
import type { Kind } from '../../src/kinds/kind.js';

let w: QueueWorld;
let pool: WorkerPool | undefined;
let otherPool: WorkerPool | undefined;

beforeEach(async () => {
  w = await queueWorld('runner');
});
afterEach(async () => {
  await pool?.close(1_000);
  await otherPool?.close(1_000);
  pool = otherPool = undefined;
  await w.close();
});

const q = () => w.queues.get('orders');

async function enqueue(...records: Array<Record<string, unknown>>): Promise<string[]> {
  await addJobs(
    q(),
    w.redis,
    records.map((r) => recordJob(orderKind, r, 'feed').job),
    orderKind,
  );
  return records.map((r) => jobIdFor(orderKind, r));
}

async function run(kind: Kind<any>, concurrency = 1): Promise<void> {
  pool = await w.startPool([kind], { concurrency });
  await waitForIdle([q()], { pollMs: 25 });
}

async function traces(id: string): Promise<Array<Record<string, any>>> {
  const { logs } = await q().getJobLogs(id, 0, -1, true);
  return logs.map((l) => JSON.parse(l));
}

async function job(id: string): Promise<Job> {
  const j = await q().getJob(id);
  if (!j) throw new Error(`no job ${id}`);
  return j;
}

describe('job runner', () => {
  describe('when a job makes calls', () => {
    it('leaves one trace line per attempt with the calls, the notes and the result', async () => {
      const [id] = await enqueue(order('WEB-1'));
      await run(
        testKind('orders', async (record, ctx) => {
          const facilities = await ctx.client.listFacilities();
          ctx.note('read the facilities', { count: facilities.length });
          return done(`synced ${record.orderId}`);
        }),
      );
      expect(await (await job(id!)).getState()).toBe('completed');
      const [trace, ...more] = await traces(id!);
      expect(more).toHaveLength(0);
      expect(trace).toMatchObject({ attempt: 1, result: { outcome: 'synced', summary: 'synced WEB-1' } });
      expect(typeof trace!.ms).toBe('number');
      expect(new Date(trace!.startedAt).getTime()).toBeGreaterThan(Date.now() - 60_000);
      expect(trace!.calls).toHaveLength(1);
      expect(trace!.calls[0]).toMatchObject({ method: 'GET', path: `/${w.sandbox.account}/api/facility`, status: 200 });
      expect(trace!.notes).toEqual([{ at: expect.any(String), message: 'read the facilities', data: { count: 0 } }]);
      expect((await job(id!)).returnvalue).toEqual({ outcome: 'synced', summary: 'synced WEB-1' });
    });
  });

  describe('when a job fails permanently', () => {
    it('fails at once, without retries, with [CODE] message', async () => {
      const [conflict, missing] = await enqueue(order('WEB-1'), order('WEB-2'));
      let runs = 0;
      await run(
        testKind('orders', async (record, ctx) => {
          runs++;
          if (record.orderId === 'WEB-1') throw new ConflictError('order WEB-1 differs in the service', 'Compare and settle it.');
          await ctx.client.getOrder(ctx.client.entityPath('order', 'NOPE'));
          return done();
        }),
      );
      expect(runs).toBe(2);
      const c = await job(conflict!);
      expect(await c.getState()).toBe('failed');
      expect(c.failedReason).toBe('[CONFLICT] order WEB-1 differs in the service');
      expect(c.attemptsMade).toBe(1);
      const m = await job(missing!);
      expect(m.failedReason).toMatch(/^\[NOT_FOUND\] /);
      expect(m.attemptsMade).toBe(1);
      const [trace] = await traces(missing!);
      expect(trace!.calls[0]).toMatchObject({ method: 'GET', status: 404, error: 'NOT_FOUND' });
      expect(trace!.error).toMatchObject({ code: 'NOT_FOUND', retryable: false, hint: expect.any(String), name: 'NotFoundError' });

      const logged = w.logLines().find((l) => l.code === 'CONFLICT');
      expect(logged).toMatchObject({ level: 50, jobId: conflict, key: 'WEB-1', hint: 'Compare and settle it.' });
      expect(String(logged!.msg)).toContain('Compare and settle it.');
    });
  });

  describe('when a job fails for now', () => {
    it('retries it with backoff until it succeeds', async () => {
      const [id] = await enqueue(order('WEB-1'));
      let runs = 0;
      await run(
        testKind('orders', async () => {
          if (++runs < 3) throw new TransientError('service answered 503', { method: 'POST', path: '/demo/api/order', status: 503 });
          return done();
        }),
      );
      const j = await job(id!);
      expect(await j.getState()).toBe('completed');
      const t = await traces(id!);
      expect(t.map((x) => x.attempt)).toEqual([1, 2, 3]);
      expect(t.map((x) => x.error?.code)).toEqual(['TRANSIENT', 'TRANSIENT', undefined]);
      // Equal jitter: each wait is at least half the exponential delay (50 ms, then 100 ms).
      const gap = (a: number, b: number) => new Date(t[b]!.startedAt).getTime() - (new Date(t[a]!.startedAt).getTime() + t[a]!.ms);
      expect(gap(0, 1)).toBeGreaterThanOrEqual(20);
      expect(gap(1, 2)).toBeGreaterThanOrEqual(45);
    });

    it('fails with [TRANSIENT] or [INTERNAL] once the attempts are spent', async () => {
      const [transient, internal] = await enqueue(order('WEB-1'), order('WEB-2'));
      await run(
        testKind('orders', async (record) => {
          if (record.orderId === 'WEB-1') throw new TransientError('connection reset', { method: 'GET', path: '/demo/api/order/X' });
          throw new Error('undefined is not a function');
        }),
      );
      const t = await job(transient!);
      expect(t.failedReason).toBe('[TRANSIENT] connection reset');
      expect(t.attemptsMade).toBe(3);
      const i = await job(internal!);
      expect(i.failedReason).toBe('[INTERNAL] undefined is not a function');
      expect(i.attemptsMade).toBe(3);
      expect(await traces(internal!)).toHaveLength(3);
    });
  });

  describe('when the service answers 429', () => {
    it('holds the whole queue, in every process, until the reset and spends no attempt', async () => {
      const starts: Array<{ id: string; at: number }> = [];
      let resetAt = 0;
      const kind = testKind('orders', async (record) => {
        starts.push({ id: record.orderId, at: Date.now() });
        if (record.orderId === 'WEB-1' && resetAt === 0) {
          resetAt = Date.now() + 800;
          throw new RateLimitedError('over the POST budget', { method: 'POST', path: '/demo/api/order', status: 429, resetAt });
        }
        return done();
      });
      const start = () => w.startPool([kind]);
      // Two pools stand for two worker processes on the same queue.
      [pool, otherPool] = await Promise.all([start(), start()]);
      const [limited] = await enqueue(order('WEB-1'));
      while (resetAt === 0) await sleep(10);
      await sleep(50);
      const others = await enqueue(order('WEB-2'), order('WEB-3'));
      await waitForIdle([q()], { pollMs: 25 });

      const l = await job(limited!);
      expect(await l.getState()).toBe('completed');
      // One completion counts one attempt; the 429 run counted none.
      expect(l.attemptsMade).toBe(1);
      expect(starts.filter((s) => s.id === 'WEB-1')).toHaveLength(2);
      // Nothing ran between the 429 and the reset, in either pool.
      const after429 = starts.slice(1);
      expect(after429).toHaveLength(3);
      for (const s of after429) expect(s.at).toBeGreaterThanOrEqual(resetAt - 20);
      for (const id of others) expect(await (await job(id)).getState()).toBe('completed');
      const t = await traces(limited!);
      expect(t.map((x) => [x.attempt, x.error?.code])).toEqual([
        [1, 'RATE_LIMITED'],
        [1, undefined],
      ]);
    });
  });

  describe('when two jobs have the same business key', () => {
    it('never runs them at once, while other keys run in parallel', async () => {
      // A corrected record of WEB-1 is a second job of the same key.
      const ids = await enqueue(order('WEB-1', 1), order('WEB-1', 2), order('WEB-2'), order('WEB-3'));
      const running = new Map<string, number>();
      let maxSameKey = 0;
      let maxTotal = 0;
      let total = 0;
      await run(
        testKind('orders', async (record) => {
          const n = (running.get(record.orderId) ?? 0) + 1;
          running.set(record.orderId, n);
          total++;
          maxSameKey = Math.max(maxSameKey, n);
          maxTotal = Math.max(maxTotal, total);
          await sleep(150);
          running.set(record.orderId, n - 1);
          total--;
          return done();
        }),
        4,
      );
      expect(maxSameKey).toBe(1);
      expect(maxTotal).toBeGreaterThan(1);
      for (const id of ids) {
        const j = await job(id);
        expect(await j.getState()).toBe('completed');
        // Waiting for the key spent no attempt.
        expect(j.attemptsMade).toBe(1);
      }
    });
  });
});
