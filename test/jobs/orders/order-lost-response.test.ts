import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderRecord, orderState } from '../../helpers/order-records.js';
import { describeEachProfile, testWorld, type TestWorld } from '../../helpers/test-world.js';

/**
 * Each write of an order, the request path that carries it, and the reads that settle its lost answer: a lost
 * shipment create is settled through the order's shipmentUrlList (the order, then its shipment), never by a
 * shipment URL built from the shipmentId sent.
 */
const STEPS = [
  { step: 'create order', path: '/api/order$', settle: ['GET /demo/api/order/'] },
  { step: 'create shipment', path: '/api/shipment$', settle: ['GET /demo/api/order/', 'GET /demo/api/shipment/'] },
  { step: 'ship', path: '/api/shipment/[^/]+$', settle: ['GET /demo/api/shipment/'] },
  { step: 'complete', path: '/complete$', settle: ['GET /demo/api/order/'] },
];

describeEachProfile('order sync', (profile) => {
  let world: TestWorld;
  let a01: string;
  const blue = '/demo/api/product/MUG-BLUE';

  beforeAll(async () => {
    world = await testWorld('order-lost', { streams: ['orders'], sandbox: { profile } });
    await world.deps.catalog.refresh();
    a01 = world.sandbox.admin.state().facilities.find((f) => f.facilityName === 'A-01')!.facilityUrl;
  });
  afterAll(async () => {
    await world?.close();
  });

  describe.each(STEPS)('when the response to "$step" is lost after the service applied it', ({ step, path, settle }) => {
    const orderId = `LOST-${step.replace(' ', '-')}`;
    let before: ReturnType<typeof world.sandbox.admin.counters>;
    let stockBefore: number;

    beforeAll(async () => {
      stockBefore = world.sandbox.admin.stockOnHand(a01, blue);
      before = world.sandbox.admin.counters();
      world.sandbox.admin.setFaults([{ kind: 'apply-then-drop', method: 'POST', path, times: 1 }]);
      await world.add('orders', [orderRecord(orderId)]);
      await world.idle();
      expect(world.sandbox.admin.counters().faults['apply-then-drop']).toBe((before.faults['apply-then-drop'] ?? 0) + 1);
      world.sandbox.admin.setFaults([]);
    });

    it('still gives exactly one order, one shipment, shipped, and the order completed', () => {
      const { orders, shipments } = orderState(world.sandbox.admin.state(), orderId);
      expect(orders.map((o) => o.statusId)).toEqual(['ORDER_COMPLETED']);
      expect(shipments.map((s) => s.statusId)).toEqual(['SHIPMENT_SHIPPED']);
      const after = world.sandbox.admin.counters();
      expect(after.creates.order - before.creates.order).toBe(1);
      expect(after.creates.shipment - before.creates.shipment).toBe(1);
    });

    it('takes the stock off once', () => {
      expect(world.sandbox.admin.stockOnHand(a01, blue)).toBe(stockBefore - 2);
    });

    it('settles the lost answer with reads of the order or its shipment, within the same attempt', async () => {
      const job = (await world.jobs('orders')).find((j) => (j.data.record as { orderId: string }).orderId === orderId)!;
      expect(job.returnvalue).toMatchObject({ outcome: 'synced' });
      const all = await world.traces('orders', job.id!);
      expect(all).toHaveLength(1);
      const calls = all[0]!.calls.map((c: { method: string; path: string; status: number | null }) => `${c.method} ${c.path} ${c.status}`);
      const reads = calls.filter((c: string) => c.startsWith('GET'));
      expect(reads).toHaveLength(settle.length);
      settle.forEach((s, i) => expect(reads[i]).toContain(s));
      expect(calls.filter((c: string) => c.startsWith('POST'))).toHaveLength(4);
      expect(calls.find((c: string) => c.endsWith('null'))).toBeDefined();
      expect(all[0]!.notes.map((n: { message: string }) => n.message).join('\n')).toMatch(/had been applied; carrying on/);
    });
  });
});

describeEachProfile('order sync', (profile) => {
  describe('when the connection breaks before the service did anything', () => {
    let world: TestWorld;
    beforeAll(async () => {
      world = await testWorld('order-reset', { streams: ['orders'], sandbox: { profile } });
      await world.deps.catalog.refresh();
      world.sandbox.admin.setFaults([{ kind: 'reset', method: 'POST', path: '/api/order$', times: 1 }]);
      await world.add('orders', [orderRecord('RESET-1')]);
      await world.idle();
    });
    afterAll(async () => {
      await world?.close();
    });

    it('reads, finds nothing applied, and creates the order on the next attempt', async () => {
      const job = (await world.jobs('orders'))[0]!;
      expect(job.returnvalue).toMatchObject({ outcome: 'synced' });
      const all = await world.traces('orders', job.id!);
      const calls = all.map((t) => t.calls.map((c: { method: string; status: number | null }) => `${c.method} ${c.status}`));
      expect(calls).toEqual([
        ['POST null', 'GET 404'],
        ['POST 200', 'POST 200', 'POST 200', 'POST 200'],
      ]);
      expect(all[0]!.error).toMatchObject({ code: 'TRANSIENT', outcome: 'uncertain' });
      const { orders, shipments } = orderState(world.sandbox.admin.state(), 'RESET-1');
      expect([orders.length, shipments.length, orders[0]!.statusId]).toEqual([1, 1, 'ORDER_COMPLETED']);
    });
  });
});
