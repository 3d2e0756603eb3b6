import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TransientError, UnauthorizedError } from '../../../src/client/answers/errors.js';
import { waitForIdle } from '../../../src/queue/drain.js';
import { jobIdFor } from '../../../src/queue/job-id.js';
import { addJobs, recordJob } from '../../../src/queue/record-jobs.js';
import { readLastOutage, readOutage } from '../../../src/queue/hold/outage-state.js';
import { readBreaker } from '../../../src/queue/hold/refusal-state.js';
import type { WorkerPool } from '../../../src/queue/worker-pool.js';
import { done, order, queueWorld, sleep, testKind, type QueueWorld } from '../support.js';
import { orderKind } from '../../../jobs/orders/order-kind.js';
import { until } from '../../kit/until.js';

let w: QueueWorld;
let pool: WorkerPool | undefined;

beforeEach(async () => {
  w = await queueWorld('outage');
});
afterEach(async () => {
  await pool?.close(1_000);
  pool = undefined;
  await w.close();
});

const q = () => w.queues.get('orders');
const down = () => new TransientError('POST /acme/api/order answered 503', { method: 'POST', path: '/acme/api/order', status: 503 });

async function enqueue(ids: string[]): Promise<string[]> {
  await addJobs(
    q(),
    w.redis,
    ids.map((id) => recordJob(orderKind, order(id), 'feed').job),
    orderKind,
  );
  return ids.map((id) => jobIdFor(orderKind, order(id)));
}

describe('the service down for everything (outage hold in the runner)', () => {
  it('holds the stream past every job’s attempts, probes at growing intervals, and goes on by itself when it answers', async () => {
    const ids = await enqueue(Array.from({ length: 12 }, (_, i) => `OUT-${i}`));
    let serviceUp = false;
    let sent = 0;
    const synced: string[] = [];
    const kind = testKind('orders', async (record) => {
      sent++;
      if (!serviceUp) throw down();
      synced.push(record.orderId);
      return done();
    });
    const probes: number[] = [];
    pool = await w.startPool([kind], {
      concurrency: 3,
      breaker: { threshold: 3 },
      outage: {
        threshold: 3,
        firstProbeMs: 100,
        probeMaxMs: 400,
        lookMs: 50,
        probe: async () => {
          probes.push(Date.now());
          return serviceUp ? { up: true, detail: 'HTTP 404' } : { up: false, detail: 'HTTP 503' };
        },
      },
    });
    await until(async () => (await readOutage(w.redis, w.keys)).open);
    // The queue is paused just after the outage is written (a second step of the same look): wait for it.
    await until(() => q().isPaused());
    expect(await q().isPaused()).toBe(true);
    // Far longer than 3 attempts of 10-50 ms: no job fails, none spends an attempt, few reach the service.
    await sleep(2_000);
    const sentWhileDown = sent;
    expect(sentWhileDown).toBeLessThanOrEqual(3 + 3);
    expect(await q().getJobCounts('failed', 'completed')).toEqual({ failed: 0, completed: 0 });
    for (const id of ids) expect((await q().getJob(id))!.attemptsMade).toBeLessThanOrEqual(2);
    const state = await readOutage(w.redis, w.keys);
    expect(state).toMatchObject({ open: true, reason: '[TRANSIENT] POST /acme/api/order answered 503', lastProbe: 'HTTP 503' });
    // Growing intervals, up to the longest: 100, 200, 400, 400... ms apart.
    const gaps = probes.slice(1).map((t, i) => t - probes[i]!);
    expect(gaps.length).toBeGreaterThanOrEqual(3);
    expect(gaps[1]!).toBeGreaterThan(gaps[0]! * 1.4);
    expect(Math.max(...gaps)).toBeLessThan(400 + 200);
    expect((await readBreaker(w.redis, w.keys, 'orders')).paused).toBe(false);

    serviceUp = true;
    await until(async () => !(await q().isPaused()));
    await waitForIdle([q()], { pollMs: 25 });
    expect(synced.sort()).toEqual(ids.map((_, i) => `OUT-${i}`).sort());
    expect(await q().getJobCounts('failed', 'completed')).toEqual({ failed: 0, completed: 12 });
    const last = await readLastOutage(w.redis, w.keys);
    expect(last).toMatchObject({ waited: 12, reason: '[TRANSIENT] POST /acme/api/order answered 503' });
    expect((await readOutage(w.redis, w.keys)).open).toBe(false);
  });

  it('retries a lone 503 among answers that work as before, without holding anything', async () => {
    const ids = await enqueue(Array.from({ length: 6 }, (_, i) => `ONE-${i}`));
    let failedOnce = false;
    let probed = 0;
    const kind = testKind('orders', async (record) => {
      if (record.orderId === 'ONE-0' && !failedOnce) {
        failedOnce = true;
        throw down();
      }
      return done();
    });
    pool = await w.startPool([kind], {
      concurrency: 2,
      outage: { threshold: 3, lookMs: 50, probe: async () => (probed++, { up: true, detail: 'HTTP 404' }) },
    });
    await waitForIdle([q()], { pollMs: 25 });
    expect(await q().getJobCounts('failed', 'completed')).toEqual({ failed: 0, completed: ids.length });
    // One attempt failed with backoff, the next synced (BullMQ counts both).
    expect((await q().getJob(ids[0]!))!.attemptsMade).toBe(2);
    expect(probed).toBe(0);
    expect(await readLastOutage(w.redis, w.keys)).toBeUndefined();
  });

  it('leaves a stream its breaker paused waiting for resume when the outage ends', async () => {
    await enqueue(['BRK-1', 'BRK-2', 'BRK-3', 'BRK-4']);
    let phase: 'down' | '401' = 'down';
    const kind = testKind('orders', async () => {
      throw phase === 'down'
        ? down()
        : new UnauthorizedError('POST /acme/api/order answered 401', { method: 'POST', path: '/acme/api/order', status: 401 });
    });
    let serviceUp = false;
    pool = await w.startPool([kind], {
      concurrency: 2,
      breaker: { threshold: 2 },
      outage: {
        threshold: 2,
        firstProbeMs: 100,
        probeMaxMs: 200,
        lookMs: 50,
        probe: async () => (serviceUp ? { up: true, detail: 'HTTP 401 (UNAUTHORIZED)' } : { up: false, detail: 'HTTP 503' }),
      },
    });
    await until(async () => (await readOutage(w.redis, w.keys)).open);
    phase = '401';
    serviceUp = true;
    await until(async () => (await readBreaker(w.redis, w.keys, 'orders')).paused);
    await sleep(500);
    expect(await q().isPaused()).toBe(true);
    expect((await readOutage(w.redis, w.keys)).open).toBe(false);
    expect(await q().getJobCounts('failed')).toEqual({ failed: 0 });
  });
});
