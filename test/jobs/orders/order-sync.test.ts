import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shipmentIdFor } from '../../../jobs/orders/shipment-id.js';
import { orderRecord, orderState } from '../../helpers/order-records.js';
import { describeEachProfile, testWorld, type TestWorld } from '../../helpers/test-world.js';
import { orderKeys } from '../../../jobs/orders/order-keys.js';

describeEachProfile('order sync', (profile) => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await testWorld('order-sync', { streams: ['orders'], sandbox: { profile } });
  });
  afterAll(async () => {
    await world?.close();
  });

  describe('on the happy path', () => {
    const records = [orderRecord('WEB-1'), orderRecord('WEB-2', undefined, { shipmentIdUser: 'PARCEL-2' }), orderRecord('WEB 3/x')];
    let before: ReturnType<typeof world.sandbox.admin.counters>;
    let stockBefore: number;
    let state: ReturnType<typeof world.sandbox.admin.state>;
    const blue = '/demo/api/product/MUG-BLUE';
    let a01: string;

    beforeAll(async () => {
      // Warm the catalog first: its collection GETs are not the orders' cost.
      await world.deps.catalog.refresh();
      const start = world.sandbox.admin.state();
      a01 = start.facilities.find((f) => f.facilityName === 'A-01')!.facilityUrl;
      stockBefore = world.sandbox.admin.stockOnHand(a01, blue);
      before = world.sandbox.admin.counters();
      await world.add('orders', records);
      await world.idle();
      state = world.sandbox.admin.state();
    });

    it('creates one order per record, completed, with the record lines and catalog product URLs', () => {
      const { orders } = orderState(state, 'WEB-1');
      expect(orders).toHaveLength(1);
      const o = orders[0]!;
      expect(o.statusId).toBe('ORDER_COMPLETED');
      expect(o.orderTypeId).toBe('SALES_ORDER');
      expect(o.originFacilityUrl).toBe(state.facilities.find((f) => f.facilityName === 'Main Warehouse')!.facilityUrl);
      expect(o.orderItemList.map((i) => [i.productId, i.productUrl, i.quantity, i.unitPrice])).toEqual([
        ['MUG-BLUE', blue, 2, 12.5],
        ['SKU-0003', '/demo/api/product/10003', 1, 4],
      ]);
    });

    it('creates one shipment per order, shipped, from the lines locations, under the id the service keeps', () => {
      for (const r of records) {
        const { shipments } = orderState(state, r.orderId as string);
        expect(shipments).toHaveLength(1);
        // `spec` keeps the derived shipmentId sent; `observed` ignores it and assigns a number.
        expect(shipments[0]!.shipmentId).toMatch(profile === 'spec' ? shipmentIdFor(r.orderId as string) : /^\d+$/);
        expect(shipments[0]!.statusId).toBe('SHIPMENT_SHIPPED');
        expect(shipments[0]!.shipmentTypeId).toBe('SALES_SHIPMENT');
        expect(shipments[0]!.shipmentItemList[0]!.facilityUrl).toBe(a01);
      }
      expect(orderState(state, 'WEB-1').shipments[0]!.shipmentIdUser).toBe('WEB-1-1');
      expect(orderState(state, 'WEB-2').shipments[0]!.shipmentIdUser).toBe('PARCEL-2');
    });

    it('takes the stock off once per order', () => {
      expect(world.sandbox.admin.stockOnHand(a01, blue)).toBe(stockBefore - 2 * records.length);
    });

    it('costs exactly 4 POSTs and no GET per order', () => {
      const after = world.sandbox.admin.counters();
      expect(after.byClass.post - before.byClass.post).toBe(4 * records.length);
      expect(after.byClass.get - before.byClass.get).toBe(0);
      expect(after.creates.order - before.creates.order).toBe(records.length);
      expect(after.creates.shipment - before.creates.shipment).toBe(records.length);
    });

    it('keeps the progress of each order in Redis', async () => {
      const progress = await world.redis.hgetall(orderKeys(world.keys).progress('WEB-1'));
      const { shipmentUrl } = orderState(state, 'WEB-1').shipments[0]!;
      expect(progress).toMatchObject({ step: 'completed', pending: '', orderUrl: '/demo/api/order/WEB-1', shipmentUrl });
      // It expires by itself (30 days): the service stays the truth.
      const ttl = await world.redis.ttl(orderKeys(world.keys).progress('WEB-1'));
      expect(ttl).toBeGreaterThan(29 * 24 * 3600);
      expect(ttl).toBeLessThanOrEqual(30 * 24 * 3600);
    });

    it('leaves a trace on each job listing its calls and the outcome', async () => {
      const job = (await world.jobs('orders')).find((j) => (j.data.record as { orderId: string }).orderId === 'WEB-1')!;
      expect(job.returnvalue).toMatchObject({ outcome: 'synced' });
      const [attempt] = await world.traces('orders', job.id!);
      expect(attempt!.attempt).toBe(1);
      expect(attempt!.calls.map((c: { method: string; path: string; status: number }) => `${c.method} ${c.path} ${c.status}`)).toEqual([
        'POST /demo/api/order 200',
        'POST /demo/api/shipment 200',
        `POST ${orderState(state, 'WEB-1').shipments[0]!.shipmentUrl} 200`,
        'POST /demo/api/order/WEB-1/complete 200',
      ]);
      expect(attempt!.calls.every((c: { ms: number }) => typeof c.ms === 'number')).toBe(true);
      expect(attempt!.result).toMatchObject({ outcome: 'synced' });
    });
  });
});
