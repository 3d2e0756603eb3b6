import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ForbiddenError, TransientError, UnauthorizedError } from '../../../src/client/answers/errors.js';
import { resumeStreams } from '../../../src/ops/resume-streams.js';
import { waitForIdle } from '../../../src/queue/drain.js';
import { BadRecordError, PermanentJobError } from '../../../src/queue/job-errors.js';
import { jobIdFor } from '../../../src/queue/job-id.js';
import { addJobs, recordJob } from '../../../src/queue/record-jobs.js';
import { readBreaker } from '../../../src/queue/hold/refusal-state.js';
import { openStreamQueues } from '../../../src/queue/stream-queues.js';
import type { WorkerPool } from '../../../src/queue/worker-pool.js';
import { done, order, queueWorld, sleep, testKind, type QueueWorld } from '../support.js';
import { orderKind } from '../../../jobs/orders/order-kind.js';
import { programKinds } from '../../../jobs/kinds.js';
import { until } from '../../kit/until.js';

let w: QueueWorld;
let pool: WorkerPool | undefined;

beforeEach(async () => {
  w = await queueWorld('brake');
});
afterEach(async () => {
  await pool?.close(1_000);
  pool = undefined;
  await w.close();
});

const q = () => w.queues.get('orders');
const revoked = () =>
  new UnauthorizedError('POST /acme/api/order answered 401: the key was revoked', { method: 'POST', path: '/acme/api/order', status: 401 });

async function enqueue(ids: string[]): Promise<string[]> {
  await addJobs(
    q(),
    w.redis,
    ids.map((id) => recordJob(orderKind, order(id), 'feed').job),
    orderKind,
  );
  return ids.map((id) => jobIdFor(orderKind, order(id)));
}

describe('circuit breaker in the runner', () => {
  describe('when the account refuses every job', () => {
    it('pauses the stream after the threshold, fails no job, spends no attempt, and resume syncs every job once', async () => {
      const ids = await enqueue(Array.from({ length: 20 }, (_, i) => `R-${i}`));
      let refusing = true;
      let refused = 0;
      const synced: string[] = [];
      const kind = testKind('orders', async (record) => {
        if (refusing) {
          refused++;
          throw revoked();
        }
        synced.push(record.orderId);
        return done();
      });
      pool = await w.startPool([kind], { concurrency: 3, breaker: { threshold: 5, retryDelayMs: 20 } });
      await until(async () => (await readBreaker(w.redis, w.keys, 'orders')).paused);
      await waitForIdle([q()], { pollMs: 25 });
      const atPause = refused;
      await sleep(300);
      // At most the threshold plus the jobs in flight, then none while paused.
      expect(atPause).toBeLessThanOrEqual(5 + 3);
      expect(refused).toBe(atPause);
      expect(await q().isPaused()).toBe(true);
      expect(await q().getJobCounts('failed', 'completed')).toEqual({ failed: 0, completed: 0 });
      for (const id of ids) expect((await q().getJob(id))!.attemptsMade).toBe(0);
      const b = await readBreaker(w.redis, w.keys, 'orders');
      expect(b).toMatchObject({ paused: true, code: 'UNAUTHORIZED', refusals: 5 });
      expect(b.reason).toMatch(/^\[UNAUTHORIZED\] POST \/acme\/api\/order answered 401/);

      refusing = false;
      const queues = openStreamQueues(w.redis, w.prefix, programKinds);
      const [r] = await resumeStreams(queues, ['orders']);
      await queues.close();
      expect(r).toMatchObject({ stream: 'orders', wasPaused: true, waiting: 20 });
      await until(async () => (await q().getJobCounts('completed')).completed === 20);
      expect(synced.sort()).toEqual(ids.map((_, i) => `R-${i}`).sort());
      expect(await q().getJobCounts('failed')).toEqual({ failed: 0 });
      expect((await readBreaker(w.redis, w.keys, 'orders')).paused).toBe(false);
    });
  });

  describe('when only one record is refused while others sync', () => {
    it('ends that job as a failure after its pushbacks, and never pauses the stream', async () => {
      const [forbidden] = await enqueue(['F-1']);
      const kind = testKind('orders', async (record) => {
        if (record.orderId === 'F-1')
          throw new ForbiddenError('POST /acme/api/shipment/9 answered 403', { method: 'POST', path: '/acme/api/shipment/9', status: 403 });
        return done();
      });
      pool = await w.startPool([kind], { concurrency: 2, breaker: { threshold: 4, retryDelayMs: 10, retryMaxDelayMs: 40 } });
      // Others keep syncing meanwhile, each resetting the count.
      for (let i = 0; i < 30 && !(await q().getJob(forbidden!))?.finishedOn; i++) {
        await enqueue([`OK-${i}`]);
        await sleep(20);
      }
      await waitForIdle([q()], { pollMs: 25 });
      const job = (await q().getJob(forbidden!))!;
      expect(job.failedReason).toMatch(/^\[FORBIDDEN\]/);
      expect(await q().isPaused()).toBe(false);
      expect((await readBreaker(w.redis, w.keys, 'orders')).paused).toBe(false);
    });
  });

  describe('when records are bad', () => {
    it('fails a storm of 50 bad records one by one and does not pause', async () => {
      await enqueue(Array.from({ length: 50 }, (_, i) => `BAD-${i}`));
      const kind = testKind('orders', async (record) => {
        throw new BadRecordError(record.orderId, 'lines.0.productId', '"NOPE" is an unknown product');
      });
      pool = await w.startPool([kind], { concurrency: 4, breaker: { threshold: 3 } });
      await waitForIdle([q()], { pollMs: 25 });
      expect(await q().getJobCounts('failed')).toEqual({ failed: 50 });
      expect(await q().isPaused()).toBe(false);
      expect(await readBreaker(w.redis, w.keys, 'orders')).toMatchObject({ paused: false, refusals: 0 });
    });
  });

  describe("when the service stays down past a job's retries", () => {
    it('counts the refusal but fails the job as before while the stream is not paused', async () => {
      const [id] = await enqueue(['DOWN-1']);
      const kind = testKind('orders', async () => {
        throw new TransientError('POST /acme/api/order answered 503', { method: 'POST', path: '/acme/api/order', status: 503 });
      });
      pool = await w.startPool([kind], { breaker: { threshold: 3 } });
      await waitForIdle([q()], { pollMs: 25 });
      const job = (await q().getJob(id!))!;
      expect(job.failedReason).toMatch(/^\[TRANSIENT\]/);
      expect(job.attemptsMade).toBe(3);
      expect(await readBreaker(w.redis, w.keys, 'orders')).toMatchObject({ paused: false, refusals: 1 });
    });
  });
});

describe('circuit breaker on the same service refusal again and again', () => {
  /** What the order job throws when the service refuses a step with a message of its own (jobs/orders/order-errors.ts). */
  const refused = (orderId: string, msg: string) =>
    new PermanentJobError('SERVICE_REFUSED', `order ${orderId}: the service refused to ship the shipment: ${msg}`, 'Check the account.', {
      orderId,
      step: 'ship the shipment',
      code: 'VALIDATION',
      status: 400,
      msg,
    });

  it('pauses after the threshold of the same refusal, and resume brings back the jobs it failed and the ones that waited', async () => {
    const ids = await enqueue(Array.from({ length: 12 }, (_, i) => `S-${i}`));
    let refusing = true;
    const synced: string[] = [];
    const kind = testKind('orders', async (record) => {
      if (refusing) throw refused(record.orderId, 'The API cannot pack or ship');
      synced.push(record.orderId);
      return done();
    });
    pool = await w.startPool([kind], { concurrency: 1, breaker: { threshold: 4 } });
    await until(async () => (await readBreaker(w.redis, w.keys, 'orders')).paused);
    await waitForIdle([q()], { pollMs: 25 });
    expect(await q().isPaused()).toBe(true);
    // The refusals before the pause failed as refusals of their records would; the rest wait.
    expect(await q().getJobCounts('failed', 'completed')).toEqual({ failed: 3, completed: 0 });
    const b = await readBreaker(w.redis, w.keys, 'orders');
    expect(b).toMatchObject({ paused: true, code: 'SERVICE_REFUSED', refusals: 4, by: 'repeated' });
    expect(b.reason).toContain('The API cannot pack or ship');

    refusing = false;
    const queues = openStreamQueues(w.redis, w.prefix, programKinds);
    const [r] = await resumeStreams(queues, ['orders']);
    await queues.close();
    expect(r!.retried).toHaveLength(3);
    expect(r!.waiting).toBe(12);
    await until(async () => (await q().getJobCounts('completed')).completed === 12);
    expect(synced.sort()).toEqual(ids.map((_, i) => `S-${i}`).sort());
    expect(await q().getJobCounts('failed')).toEqual({ failed: 0 });
  });

  it('does not pause on refusals whose messages differ (each about its own record), nor when syncs come between', async () => {
    await enqueue(Array.from({ length: 30 }, (_, i) => `D-${i}`));
    const kind = testKind('orders', async (record) => {
      const n = Number(record.orderId.slice(2));
      if (n % 5 === 4) return done();
      // Every fifth record syncs; of the others, half name their own order in the message.
      throw refused(record.orderId, n % 2 ? `orderId ${record.orderId} is too long` : 'The API cannot pack or ship');
    });
    pool = await w.startPool([kind], { concurrency: 1, breaker: { threshold: 4 } });
    await waitForIdle([q()], { pollMs: 25 });
    expect(await q().getJobCounts('failed', 'completed')).toEqual({ failed: 24, completed: 6 });
    expect(await q().isPaused()).toBe(false);
    expect((await readBreaker(w.redis, w.keys, 'orders')).paused).toBe(false);
  });
});
