import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UnauthorizedError } from '../../../src/client/answers/errors.js';
import type { JobContext } from '../../../src/queue/job-context.js';
import { readCallHolds } from '../../../src/queue/hold/call-hold.js';
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
/** Every request of the world's sandbox answered 503, or answered again. */
const serviceDown = (down: boolean) => w.sandbox.admin.setFaults(down ? [{ kind: 'status-503' }] : []);
/** What a job of these tests sends: one read of the facilities, through the job's client and so its calls' holds. */
const oneCall = (ctx: JobContext) => ctx.client.listFacilities();

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
    serviceDown(true);
    const kind = testKind('orders', async (record, ctx) => {
      sent++;
      await oneCall(ctx);
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
    expect(state).toMatchObject({ open: true, lastProbe: 'HTTP 503' });
    // The call that failed first, then the read that failed too.
    expect(state.reason).toMatch(
      /^\[TRANSIENT\] GET \/[^ ]+\/api\/facility .*\(collection reads\); a read of the service fails too \(HTTP 503\)$/,
    );
    // The first read was the held call's probe, which found the rest down too; the outage's own probes follow, at
    // growing intervals up to the longest: 100, 200, 400, 400... ms apart.
    const outageProbes = probes.slice(1);
    const gaps = outageProbes.slice(1).map((t, i) => t - outageProbes[i]!);
    expect(gaps.length).toBeGreaterThanOrEqual(3);
    expect(gaps[1]!).toBeGreaterThan(gaps[0]! * 1.4);
    expect(Math.max(...gaps)).toBeLessThan(400 + 200);
    expect((await readBreaker(w.redis, w.keys, 'orders')).paused).toBe(false);

    serviceUp = true;
    serviceDown(false);
    await until(async () => !(await q().isPaused()));
    await waitForIdle([q()], { pollMs: 25 });
    expect(synced.sort()).toEqual(ids.map((_, i) => `OUT-${i}`).sort());
    expect(await q().getJobCounts('failed', 'completed')).toEqual({ failed: 0, completed: 12 });
    const last = await readLastOutage(w.redis, w.keys);
    expect(last).toMatchObject({ waited: 12 });
    expect(last!.reason).toBe(state.reason);
    expect((await readOutage(w.redis, w.keys)).open).toBe(false);
    // The held call proved its own path after the outage: released by a request of its own.
    const calls = await readCallHolds(w.redis, w.keys);
    expect(calls.find((c) => c.call === 'collection-reads')).toMatchObject({ held: false, opened: 1, last: { answer: 'answered' } });
  });

  it('retries a lone 503 among answers that work as before, without holding anything', async () => {
    const ids = await enqueue(Array.from({ length: 6 }, (_, i) => `ONE-${i}`));
    let probed = 0;
    w.sandbox.admin.setFaults([{ kind: 'status-503', times: 1 }]);
    const kind = testKind('orders', async (_record, ctx) => {
      await oneCall(ctx);
      return done();
    });
    pool = await w.startPool([kind], {
      concurrency: 1,
      outage: { threshold: 3, lookMs: 50, probe: async () => (probed++, { up: true, detail: 'HTTP 404' }) },
    });
    await waitForIdle([q()], { pollMs: 25 });
    expect(await q().getJobCounts('failed', 'completed')).toEqual({ failed: 0, completed: ids.length });
    // One attempt failed with backoff, the next synced (BullMQ counts both).
    expect((await q().getJob(ids[0]!))!.attemptsMade).toBe(2);
    expect(probed).toBe(0);
    expect(await readLastOutage(w.redis, w.keys)).toBeUndefined();
    expect((await readCallHolds(w.redis, w.keys)).every((c) => !c.held && c.opened === 0 && c.failures === 0)).toBe(true);
  });

  it('leaves a stream its breaker paused waiting for resume when the outage ends', async () => {
    await enqueue(['BRK-1', 'BRK-2', 'BRK-3', 'BRK-4']);
    serviceDown(true);
    const kind = testKind('orders', async (_record, ctx) => {
      await oneCall(ctx);
      return done();
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
    // The service comes back refusing the credentials: every request a 401.
    w.sandbox.admin.setFaults([{ kind: 'status-401' }]);
    serviceUp = true;
    await until(async () => (await readBreaker(w.redis, w.keys, 'orders')).paused);
    await sleep(500);
    expect(await q().isPaused()).toBe(true);
    expect((await readOutage(w.redis, w.keys)).open).toBe(false);
    expect(await q().getJobCounts('failed')).toEqual({ failed: 0 });
  });
});
