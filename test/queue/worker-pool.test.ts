import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TransientError } from '../../src/client/answers/errors.js';
import { defaults } from '../../config/defaults.js';
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

  describe("when idle (issue 36: BullMQ's drainDelay raised from 5 s to defaults.workerDrainSeconds)", () => {
    /** A pool whose orders job notes when each attempt starts; `fail` makes an attempt fail (retried with backoff). */
    async function timedPool(fail: (attempt: number) => boolean = () => false, o: Parameters<QueueWorld['startPool']>[1] = {}) {
      const starts: number[] = [];
      const pool = await w.startPool(
        [
          testKind('orders', async () => {
            starts.push(Date.now());
            if (fail(starts.length))
              throw new TransientError('POST /acme/api/order answered 503', { method: 'POST', path: '/acme/api/order', status: 503 });
            return done();
          }),
        ],
        o,
      );
      pools.push(pool);
      return { pool, starts };
    }

    /** Waits until every worker of the pool is blocked in its wait for a job (BZPOPMIN on the queue's marker). */
    async function blocked(pool: WorkerPool): Promise<void> {
      const workers = [...pool.workers.values(), ...pool.intakeWorkers.values()];
      for (;;) {
        const list = (await w.redis.client('LIST')) as string;
        const waiting = list.split('\n').filter((l) => l.includes(`name=${w.prefix}:`) && l.includes('cmd=bzpopmin')).length;
        if (waiting >= workers.length) return;
        await sleep(20);
      }
    }

    it('waits for jobs a minute at a time, and a job added during the wait starts at once', async () => {
      const { pool, starts } = await timedPool();
      for (const worker of [...pool.workers.values(), ...pool.intakeWorkers.values()]) expect(worker.opts.drainDelay).toBe(60);
      expect(defaults.workerDrainSeconds).toBe(60);
      await blocked(pool);
      // Well into the wait: with a wake-up only at its end the job would start about a minute later.
      await sleep(1_000);
      const added = Date.now();
      await enqueueOne();
      while (starts.length === 0) await sleep(2);
      expect(starts[0]! - added).toBeLessThan(150);
    });

    it('starts a delayed job when it falls due, not at the end of the wait', async () => {
      const { pool, starts } = await timedPool();
      await blocked(pool);
      const { job } = recordJob(orderKind, order('WEB-1'), 'feed');
      const added = Date.now();
      await q().add(job.name, job.data, { ...job.opts, delay: 1_500 });
      while (starts.length === 0) await sleep(5);
      expect(starts[0]! - added).toBeGreaterThanOrEqual(1_500);
      expect(starts[0]! - added).toBeLessThan(1_500 + 150);
    });

    it('runs a retry when its backoff ends, though the worker went back to waiting meanwhile', async () => {
      const { pool, starts } = await timedPool((attempt) => attempt === 1, {
        retry: { retryBaseDelayMs: 1_200, retryMaxDelayMs: 1_200, jitter: 'equal' },
      });
      await blocked(pool);
      const id = await enqueueOne();
      // The retry's due time, from the delayed set's score (BullMQ keeps the due time in ms times 0x1000 there).
      let due: number | undefined;
      while (due === undefined) {
        const score = await w.redis.zscore(q().toKey('delayed'), id);
        if (score !== null) due = Math.floor(Number(score) / 0x1000);
        else await sleep(5);
      }
      expect(due - starts[0]!).toBeGreaterThanOrEqual(600);
      await blocked(pool);
      while (starts.length < 2) await sleep(5);
      expect(starts[1]!).toBeGreaterThanOrEqual(due);
      expect(starts[1]! - due).toBeLessThan(150);
      await waitForIdle([q()], { pollMs: 50 });
      expect(await (await q().getJob(id))?.getState()).toBe('completed');
    });

    it('skips the stalled-job check while its queue has no active job, and runs it while one is', async () => {
      const { pool } = await startPool(1_500, { lockDurationMs: 1_000, stalledIntervalMs: 200 });
      await blocked(pool);
      // BullMQ's check sets this key (for stalledInterval) each time it runs.
      const checked = () => w.redis.exists(q().toKey('stalled-check'));
      for (let i = 0; i < 10; i++, await sleep(60)) expect(await checked()).toBe(0);
      await enqueueOne();
      await whenActive(pool);
      let seen = false;
      for (let i = 0; i < 20 && !seen; i++, await sleep(30)) seen = (await checked()) === 1;
      expect(seen).toBe(true);
    });

    it("takes a dead worker's job back within twice the lock, the stalled check having skipped the idle queue", async () => {
      const timing = { lockDurationMs: 1_000, stalledIntervalMs: 1_000 };
      const first = await startPool(3_000, timing);
      const second = await startPool(10, timing);
      // Both idle for a few checks first.
      await sleep(1_500);
      const id = await enqueueOne();
      while (first.runs.length + second.runs.length === 0) await sleep(5);
      const dying = first.runs.length > 0 ? first : second;
      const other = dying === first ? second : first;
      let takenBack: number | undefined;
      other.pool.workers.get('orders')!.on('stalled', () => (takenBack ??= Date.now()));
      const died = Date.now();
      // The dead worker's run goes on in this process (a test cannot kill it), holding the record's key lock: what
      // is timed is the stalled check's taking the job back, not its next run.
      expect(await dying.pool.close(50)).toEqual({ forced: true });
      while (takenBack === undefined) await sleep(20);
      expect(takenBack - died).toBeLessThan(2 * 1_000 + 500);
      await waitForIdle([q()], { pollMs: 50 });
      expect(await (await q().getJob(id))?.getState()).toBe('completed');
      expect(other.runs).toEqual(['WEB-1']);
    });

    it("opens one connection for every stream of the pool, besides each worker's blocking one", async () => {
      const pool = await w.startPool(['orders', 'stock-counts', 'boms'].map((s) => testKind(s as 'orders', async () => done())));
      pools.push(pool);
      await blocked(pool);
      // This pool's connections by name (other files' tests share the Redis): BullMQ names each worker's after its
      // queue, the pool names its own `{prefix}:pool`.
      const names = ((await w.redis.client('LIST')) as string)
        .split('\n')
        .flatMap((l) => /\bname=(\S*)/.exec(l)?.slice(1) ?? [])
        .filter((n) => n.startsWith(`${w.prefix}:`));
      // 3 streams: 6 workers, each with its blocking connection, and one connection for all their other commands.
      expect(names.filter((n) => n === `${w.prefix}:pool`)).toHaveLength(1);
      expect(names).toHaveLength(6 + 1);
    });
  });
});
