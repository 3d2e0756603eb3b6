import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDeps, type AppDeps } from '../../src/app/build-deps.js';
import { repairDrifts } from '../../src/app/repair.js';
import { runRecordJobs } from '../../src/app/run-jobs.js';
import { sandboxConfig } from '../../src/app/sandbox-config.js';
import { createLogger } from '../../src/log/logger.js';
import { reconcile } from '../../src/ops/reconcile.js';
import type { ReconcileReport } from '../../src/ops/reconcile-types.js';
import { recordJob } from '../../src/queue/record-jobs.js';
import type { SandboxData } from '../../src/sandbox/sandbox-data-schema.js';
import type { SandboxState } from '../../src/sandbox/sandbox-entities.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { programKinds } from '../../jobs/kinds.js';
import { newerSnapshot } from '../../jobs/orders/reconcile-orders.js';
import { orderKeys } from '../../jobs/orders/order-keys.js';
import { cancelledLife, partsOf, returnOf, shippedLife, snap } from '../helpers/order-lives.js';
import { orderState } from '../helpers/order-records.js';
import { connect, deletePrefix, redisTarget, uniquePrefix } from '../helpers/redis.js';
import { testJobs } from '../helpers/test-world.js';

/** Issue 34: reconcile compares each order that lives with its last snapshot; --repair writes what the service allows. */
describe('reconcile and repair of orders that live', () => {
  let sandbox: Sandbox;
  let deps: AppDeps;
  const redis = connect();
  const prefix = uniquePrefix('reconcile-life');
  const orders = () => programKinds.find((k) => k.stream === 'orders')!;
  const run = () =>
    reconcile({ client: deps.client, catalog: deps.catalog, redis, prefix, queues: deps.queues, kinds: deps.kinds }, ['orders']);
  const of = (r: ReconcileReport, key: string) => r.drifts.filter((d) => d.key === key).map((d) => [d.kind, d.field, d.service, d.synced]);
  const edit = (change: (s: SandboxState) => void) => {
    const state = sandbox.admin.state();
    change(state);
    sandbox.admin.reset(JSON.parse(JSON.stringify(state)) as SandboxData);
  };
  const order = (s: SandboxState, id: string) => s.orders.find((o) => o.orderId === id)!;
  const posts = () => sandbox.admin.requests().filter((r) => r.method === 'POST').length;

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, data: 'demo' });
    const config = sandboxConfig(sandbox, { redis: redisTarget(), prefix, jobs: testJobs, catalogRefreshSeconds: 0 });
    deps = buildDeps(config, createLogger({ level: 'silent' }), { redis, budget: false, kinds: programKinds });
    const records = [
      ...shippedLife('RL-SHIP'),
      // A return notice after it: the last snapshot stays the fulfilled one.
      { orderId: 'RL-SHIP', updatedAt: '2026-11-24T09:00:00', returns: [{ ...returnOf('RL-SHIP'), returnId: 'RL-SHIP-R2' }] },
      snap('RL-OPEN', { updatedAt: '2026-11-20T10:00:00' }),
      snap('RL-EDIT', { updatedAt: '2026-11-20T10:00:00' }),
      ...cancelledLife('RL-CXL'),
      ...cancelledLife('RL-CXS'),
      snap('RL-DONE', { status: 'fulfilled', updatedAt: '2026-11-20T10:00:00', fulfillments: partsOf('RL-DONE') }),
      // Cancelled before it was seen: never created, nothing to compare.
      snap('RL-NEVER', { status: 'cancelled', updatedAt: '2026-11-20T10:00:00' }),
    ];
    // Each after the one before, as a worker takes one order's snapshots in turn.
    for (const r of records) await runRecordJobs(deps, [recordJob(orders(), r, 'feed').job], { kinds: deps.kinds });
  }, 120_000);
  afterAll(async () => {
    await deps?.close();
    await sandbox?.close();
    await deletePrefix(redis, prefix);
    redis.disconnect();
  });

  it("takes an order's newest snapshot by updatedAt as its last, a return notice never", () => {
    const [a, b] = [snap('X', { updatedAt: '2026-11-20T10:00:00' }), snap('X', { updatedAt: '2026-11-20T09:00:00' })];
    expect([newerSnapshot(a, b), newerSnapshot(b, a), newerSnapshot(a, a)]).toEqual([true, false, undefined]);
    expect(newerSnapshot({ orderId: 'X', updatedAt: '2026-12-01T00:00:00', returns: [] }, b)).toBe(false);
    expect(newerSnapshot(snap('X'), snap('X'))).toBe(undefined);
  });

  describe('after the lives synced', () => {
    it('finds no drift, every order that lives compared with its last snapshot', async () => {
      const r = await run();
      expect(r.drifts).toEqual([]);
      expect(r.unchecked).toEqual([]);
      // RL-NEVER was never created: its job skipped it, so it is no synced record.
      expect(r.checked).toMatchObject({ orders: 6, shipments: 2 + 2 });
    });
  });

  describe("when the service was changed behind the program's back", () => {
    let r: ReconcileReport;
    beforeAll(async () => {
      edit((s) => {
        order(s, 'RL-OPEN').statusId = 'ORDER_CREATED';
        const e = order(s, 'RL-EDIT');
        e.orderItemList[0]!.quantity = 5;
        e.orderItemListTotal = 5 * 12.5 + 4;
        order(s, 'RL-CXL').statusId = 'ORDER_LOCKED';
        // RL-CXS back to committed, with a shipped shipment: cancelling it would cancel that shipment too.
        const cxs = order(s, 'RL-CXS');
        cxs.statusId = 'ORDER_LOCKED';
        const any = s.shipments[0]!;
        s.shipments.push({
          ...any,
          shipmentId: '900101',
          shipmentUrl: '/demo/api/shipment/900101',
          shipmentIdUser: 'RL-CXS-F1',
          primaryOrderUrl: cxs.orderUrl,
          statusId: 'SHIPMENT_SHIPPED',
        });
        const done = order(s, 'RL-DONE');
        done.orderItemList[1]!.quantity = 2;
        done.orderItemListTotal = 3 * 12.5 + 2 * 4;
        const f2 = s.shipments.find((x) => x.shipmentIdUser === 'RL-SHIP-F2')!;
        f2.statusId = 'SHIPMENT_PACKED';
      });
      await redis.hdel(orderKeys({ prefix } as never).progress('RL-SHIP'), 'return:RL-SHIP-R1');
      r = await run();
    });

    it('names each drift against the last snapshot', () => {
      expect(of(r, 'RL-OPEN')).toEqual([['order-not-committed', 'statusId', 'ORDER_CREATED', 'ORDER_LOCKED']]);
      expect(of(r, 'RL-EDIT')).toEqual([['order-items', 'lines[MUG-BLUE] quantity x unitPrice', '5 x 12.5', '3 x 12.5']]);
      expect(of(r, 'RL-CXL')).toEqual([['order-not-cancelled', 'statusId', 'ORDER_LOCKED', 'ORDER_CANCELLED']]);
      expect(of(r, 'RL-CXS')).toEqual([
        ['order-not-cancelled', 'statusId', 'ORDER_LOCKED', 'ORDER_CANCELLED'],
        ['shipped-of-cancelled', 'shipment RL-CXS-F1', 'SHIPMENT_SHIPPED', 'none: the record cancels the order'],
      ]);
      expect(of(r, 'RL-DONE')).toEqual([['order-lines', 'lines[SKU-0003] quantity x unitPrice', '2 x 4', '1 x 4']]);
      expect(of(r, 'RL-SHIP')).toEqual([
        ['shipment-not-shipped', 'shipment RL-SHIP-F2 statusId', 'SHIPMENT_PACKED', 'SHIPMENT_SHIPPED'],
        ['return-not-restocked', 'return RL-SHIP-R1', '0 of 1 variance(s) recorded', '1 variance(s) restocking it'],
      ]);
    });

    it('plans the repairs in a dry run (every call listed, nothing written), and lists what is left to a person', async () => {
      const before = posts();
      // A dry run's parts (as openApp makes them for --dry-run), over the same Redis and sandbox.
      const dryDeps = buildDeps(deps.config, createLogger({ level: 'silent' }), {
        redis,
        budget: false,
        kinds: programKinds,
        dryRun: true,
      });
      const dry = await repairDrifts(dryDeps, { streams: ['orders'] }).finally(() => dryDeps.close());
      expect(posts()).toBe(before);
      const item = (key: string, kind: string) => dry.items.find((i) => i.key === key && i.kind === kind)!;
      expect(item('RL-OPEN', 'order-not-committed')).toMatchObject({ action: 'repair', what: 'commit the order (its units reserved)' });
      expect(item('RL-EDIT', 'order-items').action).toBe('repair');
      expect(item('RL-CXL', 'order-not-cancelled').action).toBe('repair');
      expect(item('RL-CXS', 'order-not-cancelled')).toMatchObject({
        action: 'by-hand',
        what: expect.stringContaining('a part of the order is shipped'),
      });
      expect(item('RL-CXS', 'shipped-of-cancelled').action).toBe('by-hand');
      expect(item('RL-DONE', 'order-lines')).toMatchObject({
        action: 'by-hand',
        what: expect.stringContaining('completed order cannot be changed'),
      });
      // A completed order's part cannot be shipped through the API: the person goes first, the return waits.
      expect(item('RL-SHIP', 'shipment-not-shipped')).toMatchObject({ action: 'by-hand', what: expect.stringContaining('completed') });
      expect(item('RL-SHIP', 'return-not-restocked').action).toBe('skipped');
      const calls = (key: string) => dry.plans.find((p) => p.key === key)?.calls.map((c) => c.what);
      expect(calls('RL-OPEN')).toEqual(['commit the order (its units reserved)']);
      expect(calls('RL-EDIT')).toEqual([
        'make the committed order editable',
        "change the order's lines",
        'commit the order (its units reserved)',
      ]);
      expect(calls('RL-CXL')).toEqual(['cancel the order (and its unshipped shipments)']);
      expect(dry.ok).toBe(false);
    });

    it('repairs what the service allows through the last snapshot, and leaves the rest', async () => {
      const rep = await repairDrifts(deps, { streams: ['orders'] });
      const result = (key: string) => rep.items.filter((i) => i.key === key && i.action === 'repair').map((i) => i.result);
      expect(result('RL-OPEN')).toEqual(['repaired']);
      expect(result('RL-EDIT'), JSON.stringify(rep.items.filter((i) => i.key === 'RL-EDIT'))).toEqual(['repaired']);
      expect(result('RL-CXL')).toEqual(['repaired']);
      const s = sandbox.admin.state();
      expect(order(s, 'RL-OPEN').statusId).toBe('ORDER_LOCKED');
      expect(order(s, 'RL-EDIT')).toMatchObject({ statusId: 'ORDER_LOCKED' });
      expect(order(s, 'RL-EDIT').orderItemList.map((i) => i.quantity)).toEqual([3, 1]);
      expect(order(s, 'RL-CXL').statusId).toBe('ORDER_CANCELLED');
      // Nothing of RL-CXS cancelled: its shipped part stands.
      expect(order(s, 'RL-CXS').statusId).toBe('ORDER_LOCKED');
      expect(orderState(s, 'RL-CXS').shipments.map((x) => x.statusId)).toEqual(['SHIPMENT_SHIPPED']);
      expect(rep.after!.drifts.map((d) => d.key).sort()).toEqual(['RL-CXS', 'RL-CXS', 'RL-DONE', 'RL-SHIP', 'RL-SHIP']);
    });
  });
});
