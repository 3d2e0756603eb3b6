import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isServiceError } from '../../../src/client/answers/errors.js';
import { waitForIdle } from '../../../src/queue/drain.js';
import { addJobs, recordJob } from '../../../src/queue/record-jobs.js';
import { readCallHolds, type CallHoldState } from '../../../src/queue/hold/call-hold.js';
import { probeOnce } from '../../../src/queue/hold/outage-probe.js';
import { readOutage } from '../../../src/queue/hold/outage-state.js';
import type { JobContext } from '../../../src/queue/job-context.js';
import type { WorkerPool } from '../../../src/queue/worker-pool.js';
import { done, order, queueWorld, sleep, testKind, type QueueWorld } from '../support.js';
import { orderKind } from '../../../jobs/orders/order-kind.js';
import { bomKind } from '../../../jobs/boms/bom-kind.js';
import { until } from '../../kit/until.js';

/**
 * Issue 45: a hold per named call of the service (src/queue/hold/call-hold.ts). The world's sandbox answers 503 to
 * shipment creates only; the read probe and every other call answer.
 */
let w: QueueWorld;
let pool: WorkerPool | undefined;

beforeEach(async () => {
  w = await queueWorld('call-hold');
});
afterEach(async () => {
  await pool?.close(1_000);
  pool = undefined;
  await w.close();
});

const SHIPMENT_DOWN = { kind: 'status-503' as const, method: 'POST' as const, path: '/api/shipment$' };
const shipmentPosts = () => w.sandbox.admin.requests().filter((r) => r.method === 'POST' && /\/api\/shipment$/.test(r.path));
const call = async (name: string): Promise<CallHoldState> => (await readCallHolds(w.redis, w.keys)).find((c) => c.call === name)!;

/** One shipment create: the empty sandbox refuses the body once the call answers (a 4xx is an answer; the job ends). */
async function createShipment(ctx: JobContext): Promise<void> {
  const body = {
    shipmentTypeId: 'SALES_SHIPMENT' as const,
    primaryOrderUrl: ctx.client.entityPath('order', 'NONE'),
    statusId: 'SHIPMENT_INPUT' as const,
    shipmentItemList: [],
  };
  await ctx.client.createShipment(body).catch((err: unknown) => {
    if (!isServiceError(err) || err.status === undefined || err.status >= 500) throw err;
  });
}

describe('a call of the service that fails while the rest answers', () => {
  it('holds only the jobs whose next step is it, releases on its own request, and never on another call', async () => {
    w.sandbox.admin.setFaults([SHIPMENT_DOWN]);
    const shipping = Array.from({ length: 6 }, (_, i) => order(`SHIP-${i}`));
    await addJobs(
      w.queues.get('orders'),
      w.redis,
      shipping.map((r) => recordJob(orderKind, r, 'feed').job),
      orderKind,
    );
    const orders = testKind('orders', async (_record, ctx) => {
      // A read of another call first, as a resumed order's settlement does: it answers (404) and releases nothing.
      await ctx.client.getOrder(ctx.client.entityPath('order', 'NOT-THERE')).catch(() => undefined);
      await createShipment(ctx);
      return done();
    });
    const boms = testKind('boms', async (_record, ctx) => {
      await ctx.client.listFacilities();
      return done();
    });
    pool = await w.startPool([orders, boms], {
      concurrency: 2,
      outage: { threshold: 3, firstProbeMs: 200, probeMaxMs: 800, lookMs: 50, callWaitMs: 60_000, probe: () => probeOnce(w.client) },
    });
    await until(async () => (await call('shipment-create')).held);
    const heldAt = Date.now();

    // The rest goes on: BOMs (a collection read) complete while shipment creates are held.
    const bomRecords = ['KIT-1', 'KIT-2', 'KIT-3'].map((productId) => ({ productId, components: [{ productId: 'P-1', quantity: 1 }] }));
    await addJobs(
      w.queues.get('boms'),
      w.redis,
      bomRecords.map((r) => recordJob(bomKind, r, 'feed').job),
      bomKind,
    );
    await until(async () => (await w.queues.get('boms').getJobCounts('completed')).completed === 3);

    // Held past several trials: the probe (a read, 404) and the other calls answered, the hold stands.
    await sleep(2_500);
    const held = await call('shipment-create');
    expect(held).toMatchObject({ held: true, opened: 1, probe: expect.stringMatching(/^HTTP 404 .*the rest of the service answers$/) });
    expect(held.trials).toBeGreaterThanOrEqual(2);
    expect(held.lastTrial).toMatch(/^\[TRANSIENT\] POST /);
    expect((await readOutage(w.redis, w.keys)).open).toBe(false);
    expect(await w.queues.get('orders').getJobCounts('failed', 'completed')).toEqual({ failed: 0, completed: 0 });
    // Trials at growing intervals (0.2, 0.4, 0.8 s, then at most 0.8 s), one request each.
    const trials = shipmentPosts().filter((r) => r.at > heldAt);
    const gaps = trials.slice(1).map((r, i) => r.at - trials[i]!.at);
    expect(trials.length).toBe(held.trials);
    expect(gaps[1]!).toBeGreaterThan(gaps[0]! * 1.4);
    expect(Math.max(...gaps)).toBeLessThan(800 + 400);

    // The call answers again: its next trial is answered (a 400 here), the hold ends, every waiting job goes on.
    w.sandbox.admin.setFaults([]);
    await until(async () => !(await call('shipment-create')).held, 5_000);
    await waitForIdle([w.queues.get('orders')], { pollMs: 25 });
    expect(await w.queues.get('orders').getJobCounts('failed', 'completed')).toEqual({ failed: 0, completed: 6 });
    const ended = await call('shipment-create');
    expect(ended).toMatchObject({ held: false, opened: 1, failures: 0, last: { answer: expect.stringMatching(/^HTTP 4\d\d /) } });
    // Waiting jobs spent no attempt: at most the three that held the call spent one each.
    const attempts = await Promise.all((await w.queues.get('orders').getJobs(['completed'])).map((j) => j.attemptsMade));
    expect(attempts.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(6 + 3);
  });

  it('lets a job whose next step is a held call wait there without sending it', async () => {
    w.sandbox.admin.setFaults([SHIPMENT_DOWN]);
    await addJobs(
      w.queues.get('orders'),
      w.redis,
      ['A', 'B', 'C', 'D'].map((id) => recordJob(orderKind, order(id), 'feed').job),
      orderKind,
    );
    const kind = testKind('orders', async (_record, ctx) => {
      await createShipment(ctx);
      return done();
    });
    pool = await w.startPool([kind], {
      concurrency: 1,
      outage: { threshold: 3, firstProbeMs: 60_000, probeMaxMs: 60_000, lookMs: 50, callWaitMs: 60_000, probe: () => probeOnce(w.client) },
    });
    await until(async () => (await call('shipment-create')).held);
    await until(async () => (await w.queues.get('orders').getJobCounts('delayed')).delayed === 4);
    const sent = shipmentPosts().length;
    await sleep(1_000);
    // The fourth job met the hold before its request: not sent, waiting at the call with its trace saying so.
    expect(shipmentPosts().length).toBe(sent);
    expect(sent).toBeLessThanOrEqual(3 + 1);
    const waiting = await w.redis.zcard(w.keys.callHeld('shipment-create', 'orders'));
    expect(waiting).toBe(4);
    const traces = await Promise.all(
      (await w.queues.get('orders').getJobs(['delayed'])).map(async (j) => {
        const { logs } = await w.queues.get('orders').getJobLogs(String(j.id));
        return JSON.parse(logs.at(-1)!) as { calls: unknown[]; error: { code: string; message: string } };
      }),
    );
    // Each says it waits at the call; the one that met the hold before its request made no call at all.
    for (const t of traces) expect(t.error.code).toBe('HELD');
    const unsent = traces.filter((t) => t.error.message.includes('was not sent: shipment create is held'));
    expect(unsent.length).toBeGreaterThanOrEqual(1);
    for (const t of unsent) expect(t.calls).toEqual([]);
  });
});
