import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { countRecord } from '../helpers/count-record.js';
import { orderRecord, orderState, syncedOnce } from '../helpers/order-records.js';
import { runCli } from './run-cli.js';
import { startStack, type Stack } from './stack.js';
import { eventually, freePort, startWorkerProcess, type WorkerProcess } from './worker-process.js';

/**
 * Issue 45: one endpoint down, the rest fine. Shipment creates answer 503 for 30 s while every other call answers.
 * Only the orders whose next step is the shipment wait there; stock counts and BOMs are written during the window;
 * the hold opens a handful of times at most and few requests reach the failing call; every order is completed after
 * it, each record applied exactly once. Both profiles, side by side.
 *
 * Issue 45's window was 60 s; 30 s tells the same: the held call's trials come 2, 4, 8 and 16 s apart (30 s from the
 * hold, as 60 s is with the next one), so the window holds one trial fewer and ends just before a trial, as 60 s does.
 */
const WINDOW_MS = 30_000;
const ORDERS = 10;
const SHIPMENT_CREATE = { kind: 'status-503' as const, method: 'POST' as const, path: '/api/shipment$' };

/** What one scenario started, stopped by that scenario alone (the two profiles run side by side). */
interface Started {
  stack?: Stack;
  worker?: WorkerProcess;
}

interface CallJson {
  call: string;
  held: boolean;
  since: string | null;
  reason: string | null;
  probe: string | null;
  opened: number;
  waiting: Record<string, number>;
}
interface StatusJson {
  outage: { open: boolean };
  calls: CallJson[];
}

async function status(stack: Stack): Promise<StatusJson> {
  const r = await runCli(['status', '--json'], stack.env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as StatusJson;
}

const counts = (n: number) =>
  Array.from({ length: n }, (_, i) => countRecord(`ONE-C${i}`, 'A-0' + ((i % 6) + 1), '2026-11-30', [[`SKU-00${10 + i}`, 50 + i]]));
const boms = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ productId: `SKU-02${31 + i}`, components: [{ productId: 'SKU-0001', quantity: i + 2 }] }));

async function scenario(profile: 'observed' | 'spec', started: Started) {
  const stack = await startStack({}, `one-call-${profile}`, { profile });
  started.stack = stack;
  const env = {
    ...stack.env,
    LOG_LEVEL: 'info',
    ORDER_POLL_SECONDS: '1',
    BOM_POLL_SECONDS: '2',
    STOCK_SYNC_CRON: '*/3 * * * * *',
    STOCK_SYNC_TZ: 'UTC',
    WORKER_CONCURRENCY: '4',
    WORKER_HTTP_PORT: String(await freePort()),
  };
  const worker = startWorkerProcess(env);
  started.worker = worker;
  const http = await worker.httpUrl;
  stack.feed.append('orders', [orderRecord('WARM-1')]);
  await eventually(async () => syncedOnce(stack.sandbox.admin.state(), ['WARM-1']), 30_000, 'the warm-up order');

  stack.sandbox.admin.setFaults([SHIPMENT_CREATE]);
  const downAt = Date.now();
  const ids = Array.from({ length: ORDERS }, (_, i) => `ONE-${profile}-${i}`);
  stack.feed.append(
    'orders',
    ids.map((id) => orderRecord(id)),
  );
  await eventually(
    async () => (await status(stack)).calls.some((c) => c.call === 'shipment-create' && c.held),
    20_000,
    'shipment create held',
  );
  stack.feed.append('stock-counts', counts(6));
  stack.feed.append('boms', boms(4));

  // Within the window: every count and BOM written, every order created and waiting at its shipment.
  const state = () => stack.sandbox.admin.state();
  await eventually(
    async () => stack.sandbox.admin.counters().creates.variance >= 6 && bomsApplied(stack) === 4,
    WINDOW_MS - 10_000,
    'counts and BOMs written during the window',
  );
  expect(Date.now() - downAt).toBeLessThan(WINDOW_MS);
  await eventually(async () => ids.every((id) => orderState(state(), id).orders.length === 1), 20_000, 'orders created');
  const held = await status(stack);
  const shipment = held.calls.find((c) => c.call === 'shipment-create')!;
  expect(held.outage.open).toBe(false);
  expect(shipment).toMatchObject({ held: true });
  expect(shipment.reason).toMatch(/^\[TRANSIENT\] POST .*\/api\/shipment/);
  expect(shipment.probe).toMatch(/the rest of the service answers/);
  expect(shipment.waiting.orders).toBeGreaterThan(0);
  expect(held.calls.filter((c) => c.held).map((c) => c.call)).toEqual(['shipment-create']);
  const human = await runCli(['status'], stack.env);
  expect(human.stdout).toContain('HELD: shipment create since');
  // Where operators look: /readyz stays ready and names the call; /metrics says it is held.
  const ready = await fetch(`${http}/readyz`);
  expect(ready.status).toBe(200);
  expect(JSON.stringify(await ready.json())).toContain('shipment create held since');
  const metrics = await (await fetch(`${http}/metrics`)).text();
  expect(metrics).toContain('isync_call_held{call="shipment-create"} 1');
  expect(metrics).toContain('isync_call_held{call="variance"} 0');

  await new Promise((r) => setTimeout(r, Math.max(0, downAt + WINDOW_MS - Date.now())));
  stack.sandbox.admin.setFaults([]);
  const upAt = Date.now();
  const toShipment = stack.sandbox.admin
    .requests()
    .filter((r) => r.at >= downAt && r.at < upAt && r.method === 'POST' && /\/api\/shipment$/.test(r.path));
  const opened = (await status(stack)).calls.find((c) => c.call === 'shipment-create')!.opened;

  await eventually(async () => syncedOnce(state(), ['WARM-1', ...ids]), 90_000, 'every order completed').catch((e) => {
    console.log(
      worker.stdoutLines
        .filter((l) => /"level":(40|50)/.test(l))
        .slice(-30)
        .join('\n'),
    );
    console.log(
      JSON.stringify(
        ids.map((id) => orderState(state(), id)).map((o) => [o.orders.map((x) => x.statusId), o.shipments.map((x) => x.statusId)]),
      ),
    );
    throw e;
  });
  const firstShipment = stack.sandbox.admin
    .requests()
    .find((r) => r.at >= upAt && r.method === 'POST' && /\/api\/shipment$/.test(r.path) && r.status === 200);
  const q = new Queue('orders', { connection: stack.redis, prefix: stack.prefix });
  try {
    await eventually(async () => (await q.getJobCounts('completed')).completed === ORDERS + 1, 20_000, 'every order job completed');
    expect(await q.getJobCounts('failed')).toEqual({ failed: 0 });
  } finally {
    await q.close();
  }
  // Exactly once: one order and one shipment per record, one variance per count, one BOM entry per product.
  expect(stack.sandbox.admin.counters().creates).toMatchObject({ order: ORDERS + 1, shipment: ORDERS + 1, variance: 6 });
  expect(bomsApplied(stack)).toBe(4);
  const lines = worker.stdoutLines;
  expect(lines.filter((l) => l.includes('"msg":"the service is down:'))).toHaveLength(0);
  return { requestsToFailingCall: toShipment.length, opened, returnToFirstShipmentMs: firstShipment ? firstShipment.at - upAt : null };
}

/** Products of the scenario's BOMs whose one MANUF_COMPONENT entry has the BOM's component. */
function bomsApplied(stack: Stack): number {
  const products = stack.sandbox.admin.state().products;
  return boms(4).filter((b) => {
    const p = products.find((x) => x.productId === b.productId);
    const entries = (p?.productAssocList ?? []).filter((a) => a.productAssocTypeId === 'MANUF_COMPONENT');
    return (
      entries.length === 1 &&
      entries[0]!.productAssocItemList.length === 1 &&
      entries[0]!.productAssocItemList[0]!.quantity === b.components[0]!.quantity
    );
  }).length;
}

describe('worker with one call of the service down for 30 s (issue 45)', () => {
  it.concurrent.each(['observed', 'spec'] as const)(
    'holds only the jobs that need it, on the %s service: counts and BOMs go on, orders complete after, each once',
    async (profile) => {
      const started: Started = {};
      const figures = await scenario(profile, started).finally(async () => {
        await started.worker?.stop();
        await started.stack?.close();
      });
      console.log(`one call down (${profile}): ${JSON.stringify(figures)}`);
      // A handful of transitions and at most 20 requests to the failing call, in 30 s (8 in 60 s, measured).
      expect(figures.opened).toBeLessThanOrEqual(3);
      expect(figures.requestsToFailingCall).toBeLessThanOrEqual(20);
      expect(figures.returnToFirstShipmentMs).not.toBeNull();
    },
    240_000,
  );
});
