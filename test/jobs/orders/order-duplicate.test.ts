import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderRecord } from '../../../jobs/orders/order-record.js';
import { planOrder, recordHashOf } from '../../../jobs/orders/order-plan.js';
import { jobOf, describeEachProfile, testWorld, type TestWorld } from '../../helpers/test-world.js';
import { orderRecord, orderState } from '../../helpers/order-records.js';
import { orderKeys } from '../../../jobs/orders/order-keys.js';

describeEachProfile('order sync', (profile) => {
  let world: TestWorld;
  const callsOf = async (orderId: string) => {
    const job = await jobOf(world, 'orders', orderId);
    const traces = await world.traces('orders', job.id!);
    return {
      job,
      calls: traces.flatMap((t) =>
        t.calls.map((c: { method: string; path: string; status: number }) => `${c.method} ${c.path} ${c.status}`),
      ),
    };
  };
  /** The record's order and shipment, made in the service as the job would have made them (not shipped). */
  const madeBefore = async (record: Record<string, unknown>) => {
    const plan = await planOrder(record as OrderRecord, world.deps.catalog);
    const order = await world.client.createOrder(plan.order!);
    const shipment = await world.client.createShipment({ ...plan.parts[0]!.shipment, primaryOrderUrl: order.orderUrl });
    return { order, shipment };
  };

  beforeAll(async () => {
    world = await testWorld('order-duplicate', { streams: ['orders'], sandbox: { profile } });
    await world.deps.catalog.refresh();
  });
  afterAll(async () => {
    await world?.close();
  });

  describe('when the order and its shipment exist already and the progress in Redis is gone', () => {
    let before: ReturnType<typeof world.sandbox.admin.counters>;
    let shipmentUrl: string;
    beforeAll(async () => {
      ({
        shipment: { shipmentUrl },
      } = await madeBefore(orderRecord('DUPX-1')));
      before = world.sandbox.admin.counters();
      await world.add('orders', [orderRecord('DUPX-1')]);
      await world.idle();
    });

    it('reads the order back on the duplicate, finds its shipment in its shipmentUrlList, and ships that one', async () => {
      const { job, calls } = await callsOf('DUPX-1');
      expect(job.returnvalue).toMatchObject({ outcome: 'synced' });
      expect(calls).toEqual([
        'POST /demo/api/order 400',
        'GET /demo/api/order/DUPX-1 200',
        `GET ${shipmentUrl} 200`,
        `POST ${shipmentUrl} 200`,
        'POST /demo/api/order/DUPX-1/complete 200',
      ]);
    });

    it('still gives exactly one order and one shipment, shipped, and the order completed', () => {
      const { orders, shipments } = orderState(world.sandbox.admin.state(), 'DUPX-1');
      expect([orders.map((o) => o.statusId), shipments.map((s) => s.statusId)]).toEqual([['ORDER_COMPLETED'], ['SHIPMENT_SHIPPED']]);
      const after = world.sandbox.admin.counters();
      expect([after.creates.order - before.creates.order, after.creates.shipment - before.creates.shipment]).toEqual([0, 0]);
    });
  });

  describe('when the progress says only "created" but the shipment exists (progress restored from an older state)', () => {
    let before: ReturnType<typeof world.sandbox.admin.counters>;
    let shipmentUrl: string;
    beforeAll(async () => {
      const record = orderRecord('OLD-1');
      const made = await madeBefore(record);
      shipmentUrl = made.shipment.shipmentUrl;
      await world.redis.hset(orderKeys(world.keys).progress('OLD-1'), {
        step: 'created',
        pending: '',
        recordHash: recordHashOf(record as OrderRecord),
        orderUrl: made.order.orderUrl,
      });
      before = world.sandbox.admin.counters();
      await world.add('orders', [record]);
      await world.idle();
    });

    it('reads the order before creating a shipment, and ships the one it lists instead of creating a second', async () => {
      const { job, calls } = await callsOf('OLD-1');
      expect(job.returnvalue).toMatchObject({ outcome: 'synced' });
      expect(calls).toEqual([
        'GET /demo/api/order/OLD-1 200',
        `GET ${shipmentUrl} 200`,
        `POST ${shipmentUrl} 200`,
        'POST /demo/api/order/OLD-1/complete 200',
      ]);
      const { orders, shipments } = orderState(world.sandbox.admin.state(), 'OLD-1');
      expect([orders.map((o) => o.statusId), shipments.map((s) => s.statusId)]).toEqual([['ORDER_COMPLETED'], ['SHIPMENT_SHIPPED']]);
      expect(world.sandbox.admin.counters().creates.shipment).toBe(before.creates.shipment);
    });
  });

  describe('when the order was completed in the service after the progress last saw it', () => {
    beforeAll(async () => {
      const record = orderRecord('DONE-1');
      const { order, shipment } = await madeBefore(record);
      await world.client.modifyShipment(shipment.shipmentUrl, { statusId: 'SHIPMENT_SHIPPED' });
      await world.client.completeOrder(order.actionUrlComplete!);
      const progress = {
        step: 'shipped',
        pending: '',
        recordHash: recordHashOf(record as OrderRecord),
        orderUrl: order.orderUrl,
        shipmentUrl: shipment.shipmentUrl,
        actionUrlComplete: order.actionUrlComplete!,
      };
      await world.redis.hset(orderKeys(world.keys).progress('DONE-1'), progress);
      await world.add('orders', [record]);
      await world.idle();
    });

    it('takes the refusal (400, or 403 from the observed service) as "completed" once a read confirms it', async () => {
      const { job, calls } = await callsOf('DONE-1');
      expect(job.returnvalue).toMatchObject({ outcome: 'unchanged' });
      expect(calls).toEqual([`POST /demo/api/order/DONE-1/complete ${profile === 'spec' ? 400 : 403}`, 'GET /demo/api/order/DONE-1 200']);
    });
  });

  describe('when the order lists two shipments that each match the record', () => {
    let before: ReturnType<typeof world.sandbox.admin.counters>;
    beforeAll(async () => {
      const record = orderRecord('TWO-1');
      const made = await madeBefore(record);
      // A second, identical shipment on the same order (the spec profile refuses the same shipmentId twice).
      const plan = await planOrder(record as OrderRecord, world.deps.catalog);
      await world.client.createShipment({ ...plan.parts[0]!.shipment, shipmentId: undefined, primaryOrderUrl: made.order.orderUrl });
      before = world.sandbox.admin.counters();
      await world.add('orders', [record]);
      await world.idle();
    });

    it('picks neither: fails at once with a conflict naming both, and writes nothing', async () => {
      const { job } = await callsOf('TWO-1');
      expect(job.failedReason).toMatch(
        /^\[CONFLICT\] order TWO-1: the order \/demo\/api\/order\/TWO-1 lists 2 shipments that each match the record \(/,
      );
      expect(job.attemptsMade).toBe(1);
      const after = world.sandbox.admin.counters();
      expect(after.byClass.post).toBe(before.byClass.post + 1); // the create order, answered as a duplicate
      expect(orderState(world.sandbox.admin.state(), 'TWO-1').shipments.map((s) => s.statusId)).toEqual([
        'SHIPMENT_INPUT',
        'SHIPMENT_INPUT',
      ]);
    });
  });
});
