import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOrderWorkerProcess } from '../../helpers/order-worker-process.js';
import { orderSnapshot, orderState } from '../../helpers/order-records.js';
import { describeEachProfile, testWorld, type TestWorld } from '../../helpers/test-world.js';
import { orderKeys } from '../../../jobs/orders/order-keys.js';

const A01 = 'Main Warehouse / A-01';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const snap = orderSnapshot;
const F1 = (id: string) => ({ fulfillmentId: `${id}-F1`, lines: [{ productId: 'MUG-BLUE', quantity: 2, location: A01 }] });
const F2 = (id: string) => ({
  fulfillmentId: `${id}-F2`,
  lines: [
    { productId: 'MUG-BLUE', quantity: 1, location: A01 },
    { productId: 'SKU-0003', quantity: 1, location: 'A-02' },
  ],
});
const R1 = (id: string) => ({
  returnId: `${id}-R1`,
  restock: true,
  returnedAt: '2026-11-23T10:00:00',
  lines: [{ productId: 'MUG-BLUE', quantity: 1, location: A01 }],
});

describeEachProfile("an order's life under faults", (profile) => {
  describe('when every kind of write loses its answer once', () => {
    let world: TestWorld;
    const ids = ['LOST-1', 'LOST-2', 'LOST-3'];
    let stock: number;
    let fired = 0;
    beforeAll(async () => {
      world = await testWorld(`life-lost-${profile}`, { streams: ['orders'], sandbox: { profile } });
      await world.deps.catalog.refresh();
      stock = world.sandbox.admin.stockOnHand(world.facility('A-01'), world.product('MUG-BLUE'));
      // Each write is applied by the service, its answer lost: lock, edit, lines, shipment, ship, variance, complete.
      world.sandbox.admin.setFaults(
        [
          '/lock$',
          '/edit$',
          '/api/order/LOST-[0-9]+$',
          '/api/shipment$',
          '/api/shipment/[^/]+$',
          '/api/inventoryvariance$',
          '/complete$',
        ].map((path) => ({ kind: 'apply-then-drop' as const, method: 'POST' as const, path, times: 2 })),
      );
      // Open; a quantity raised (3 to 4); the first part shipped; the second part and fulfilled.
      const edited = [
        { productId: 'MUG-BLUE', quantity: 4, unitPrice: 12.5, location: A01 },
        { productId: 'SKU-0003', quantity: 1, unitPrice: 4, location: 'A-02' },
      ];
      const f2 = (id: string) => ({
        ...F2(id),
        lines: [
          { productId: 'MUG-BLUE', quantity: 2, location: A01 },
          { productId: 'SKU-0003', quantity: 1, location: 'A-02' },
        ],
      });
      const lives = (id: string, i: number) => [
        snap(id, { updatedAt: `2026-11-20T10:0${i}:00` }),
        snap(id, { updatedAt: `2026-11-20T11:0${i}:00`, lines: edited }),
        snap(id, { updatedAt: `2026-11-20T12:0${i}:00`, lines: edited, fulfillments: [F1(id)] }),
        snap(id, { status: 'fulfilled', updatedAt: `2026-11-21T10:0${i}:00`, lines: edited, fulfillments: [F1(id), f2(id)] }),
      ];
      for (const step of [0, 1, 2, 3]) {
        await world.add(
          'orders',
          ids.map((id, i) => lives(id, i)[step]!),
        );
        await world.idle(30_000);
      }
      const withReturn = (id: string, i: number) => ({ ...lives(id, i)[3]!, updatedAt: `2026-11-23T10:0${i}:00`, returns: [R1(id)] });
      await world.add('orders', ids.map(withReturn));
      await world.idle(30_000);
      fired = world.sandbox.admin.faults().reduce((n, f) => n + f.fired, 0);
      world.sandbox.admin.setFaults([]);
    }, 90_000);
    afterAll(async () => {
      await world?.close();
    });

    it('lost answers were met', () => {
      expect(fired).toBeGreaterThanOrEqual(7);
    });
    it('ends each order completed with its edited lines, one shipment per fulfillment, shipped', () => {
      for (const id of ids) {
        const { orders, shipments } = orderState(world.sandbox.admin.state(), id);
        expect(orders).toHaveLength(1);
        expect(orders[0]!.statusId).toBe('ORDER_COMPLETED');
        expect(orders[0]!.orderItemList.map((i) => [i.productId, i.quantity])).toEqual([
          ['MUG-BLUE', 4],
          ['SKU-0003', 1],
        ]);
        const live = shipments.filter((s) => s.statusId !== 'SHIPMENT_CANCELLED');
        expect(live.map((s) => [s.shipmentIdUser, s.statusId]).sort()).toEqual([
          [`${id}-F1`, 'SHIPMENT_SHIPPED'],
          [`${id}-F2`, 'SHIPMENT_SHIPPED'],
        ]);
      }
    });
    it('restocks each return once: stock moved by what shipped less what came back', () => {
      expect(world.sandbox.admin.stockOnHand(world.facility('A-01'), world.product('MUG-BLUE'))).toBe(stock - ids.length * (4 - 1));
    });
    it('fails no job', async () => {
      const failed = (await world.jobs('orders')).filter((j) => j.failedReason);
      expect(failed.map((j) => j.failedReason)).toEqual([]);
    });
  });

  describe('when a worker is killed between a lock and a shipment, the shipment applied but not answered', () => {
    let world: TestWorld;
    const ids = ['KILL-L1', 'KILL-L2', 'KILL-L3'];
    const children: ChildProcess[] = [];
    let pendingAtKill: string[] = [];
    beforeAll(async () => {
      world = await testWorld(`life-kill-${profile}`, { streams: ['orders'], workers: false, sandbox: { profile } });
      await world.deps.catalog.refresh();
      world.sandbox.admin.setFaults([{ kind: 'apply-then-hang', method: 'POST', path: '/api/shipment$', times: ids.length }]);
      await world.add(
        'orders',
        ids.map((id) => snap(id, { updatedAt: '2026-11-20T10:00:00', fulfillments: [F1(id)] })),
      );
      const first = await startOrderWorkerProcess(world);
      children.push(first);
      const until = Date.now() + 20_000;
      while (world.sandbox.admin.faults()[0]!.fired < ids.length && Date.now() < until) await sleep(10);
      first.kill('SIGKILL');
      await new Promise((r) => first.once('exit', r));
      for (const id of ids) pendingAtKill.push((await world.redis.hget(orderKeys(world.keys).progress(id), 'pending')) ?? '');
      world.sandbox.admin.setFaults([]);
      children.push(await startOrderWorkerProcess(world));
      await world.idle(30_000);
    }, 60_000);
    afterAll(async () => {
      for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
      await world?.close();
    });

    it('was killed with each order committed and its shipment sent, unanswered', () => {
      expect(pendingAtKill).toEqual(ids.map((id) => `shipment:${id}-F1`));
      for (const id of ids) expect(orderState(world.sandbox.admin.state(), id).shipments.length).toBeGreaterThan(0);
    });
    it('ends with one shipment per order, shipped, the order committed', () => {
      for (const id of ids) {
        const { orders, shipments } = orderState(world.sandbox.admin.state(), id);
        expect(orders.map((o) => o.statusId)).toEqual(['ORDER_LOCKED']);
        expect(shipments.map((s) => [s.shipmentIdUser, s.statusId])).toEqual([[`${id}-F1`, 'SHIPMENT_SHIPPED']]);
      }
    });
  });
});
