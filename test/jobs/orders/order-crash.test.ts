import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOrderWorkerProcess } from '../../helpers/order-worker-process.js';
import { orderRecord, orderState } from '../../helpers/order-records.js';
import { describeEachProfile, testWorld, type TestWorld } from '../../helpers/test-world.js';
import { orderKeys } from '../../../jobs/orders/order-keys.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describeEachProfile('order sync', (profile) => {
  describe('when a worker process is killed with SIGKILL in the middle of orders and another takes over', () => {
    let world: TestWorld;
    const ids = Array.from({ length: 24 }, (_, i) => `KILL-${i + 1}`);
    const children: ChildProcess[] = [];
    let midFlight = 0;
    let pendingAtKill = 0;
    let stockBefore: number;
    let a01: string;

    beforeAll(async () => {
      world = await testWorld('order-crash', {
        streams: ['orders'],
        workers: false,
        sandbox: { profile, latency: { ms: 40, jitterMs: 40 } },
      });
      await world.deps.catalog.refresh();
      a01 = world.sandbox.admin.state().facilities.find((f) => f.facilityName === 'A-01')!.facilityUrl;
      stockBefore = world.sandbox.admin.stockOnHand(a01, '/demo/api/product/MUG-BLUE');
      await world.add(
        'orders',
        ids.map((id) => orderRecord(id)),
      );

      const first = await startOrderWorkerProcess(world, { concurrency: 6 });
      children.push(first);
      while (world.sandbox.admin.counters().creates.order < 8) await sleep(10);
      first.kill('SIGKILL');
      await new Promise((r) => first.once('exit', r));
      midFlight = world.sandbox.admin.state().orders.filter((o) => o.statusId !== 'ORDER_COMPLETED').length;
      for (const id of ids) if (await world.redis.hget(orderKeys(world.keys).progress(id), 'pending')) pendingAtKill++;

      children.push(await startOrderWorkerProcess(world, { concurrency: 6 }));
      await world.idle(45_000);
    }, 60_000);
    afterAll(async () => {
      for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
      await world?.close();
    });

    it('was killed with orders half done', () => {
      expect(midFlight).toBeGreaterThan(0);
      expect(pendingAtKill).toBeGreaterThan(0);
    });

    it('gives every order exactly one order, one shipment, shipped, and completed', () => {
      const state = world.sandbox.admin.state();
      for (const id of ids) {
        const { orders, shipments } = orderState(state, id);
        expect(
          orders.map((o) => o.statusId),
          id,
        ).toEqual(['ORDER_COMPLETED']);
        expect(
          shipments.map((s) => s.statusId),
          id,
        ).toEqual(['SHIPMENT_SHIPPED']);
      }
      const counters = world.sandbox.admin.counters();
      expect(counters.creates.order).toBe(ids.length);
      expect(counters.creates.shipment).toBe(ids.length);
    });

    it('takes the stock off once per order', () => {
      expect(world.sandbox.admin.stockOnHand(a01, '/demo/api/product/MUG-BLUE')).toBe(stockBefore - 2 * ids.length);
    });

    it('settles what the killed process left uncertain by reading the service', async () => {
      const jobs = await world.jobs('orders');
      expect(await Promise.all(jobs.map((j) => j.getState()))).toEqual(jobs.map(() => 'completed'));
      const notes = (await Promise.all(jobs.map((j) => world.traces('orders', j.id!))))
        .flat()
        .flatMap((t) => t.notes.map((n: { message: string }) => n.message));
      expect(notes.some((m: string) => /is uncertain; reading the service/.test(m))).toBe(true);
    });
  });
});
