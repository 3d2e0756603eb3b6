import { describe, expect, it } from 'vitest';
import { demo, orderBody, orderWithShipment, useSandbox, varianceBody } from './helpers.js';

/** docs/service.md "States", and the states docs/sandbox.md chose where the spec says "not shown". */
// The spec profile's answers; the observed profile's differences are in profile-*.test.ts.
const t = useSandbox({ profile: 'spec' });
const COMPLETED_MSG = (id: string) => `Order ${id} is completed and cannot be modified until it is made editable again`;

describe('states and transitions (spec section 3)', () => {
  describe('order', () => {
    it('is created ORDER_CREATED and completes to ORDER_COMPLETED with body {}, answering the order', async () => {
      const o = await t.api.ok('order', orderBody('S-1'));
      expect(o.statusId).toBe('ORDER_CREATED');
      const done = await t.api.ok(o.actionUrlComplete, {});
      expect(done).toMatchObject({ orderId: 'S-1', statusId: 'ORDER_COMPLETED', orderItemList: o.orderItemList });
      expect((await t.api.get(o.orderUrl)).body.statusId).toBe('ORDER_COMPLETED');
    });

    it('records each status change in the order history', async () => {
      const o = await t.api.ok('order', orderBody('S-2'));
      await t.api.ok(o.actionUrlComplete);
      const h = (await t.api.get(o.orderHistoryListUrl)).body;
      expect(h.statusId).toEqual(['ORDER_CREATED', 'ORDER_COMPLETED']);
      expect(h.txStamp.every(Number.isInteger)).toBe(true);
    });

    describe('when the order is completed', () => {
      it('refuses any modification with the completed-order message', async () => {
        const o = await t.api.ok('order', orderBody('S-3'));
        await t.api.ok(o.actionUrlComplete);
        const attempts = [
          t.api.post(o.orderUrl, { orderDate: '2026-01-01T00:00:00' }),
          t.api.post(o.orderUrl, {}),
          t.api.post(o.actionUrlComplete, {}),
          t.api.post(o.actionUrlLock, {}),
          t.api.post(o.actionUrlCancel, {}),
          t.api.post(o.reserveAllUrl, {}),
          t.api.post('shipment/', {
            shipmentTypeId: 'SALES_SHIPMENT',
            primaryOrderUrl: o.orderUrl,
            statusId: 'SHIPMENT_INPUT',
            shipmentItemList: [],
          }),
        ];
        for (const a of await Promise.all(attempts)) expect(a).toMatchObject({ status: 400, body: { msg: COMPLETED_MSG('S-3') } });
        expect((await t.api.get(o.orderUrl)).body).toMatchObject({
          statusId: 'ORDER_COMPLETED',
          orderDate: o.orderDate,
          shipmentUrlList: [],
        });
      });
    });

    it('locks: ORDER_LOCKED refuses changes by POST but can still ship and complete', async () => {
      const o = await t.api.ok('order', orderBody('S-4'));
      expect((await t.api.ok(o.actionUrlLock)).statusId).toBe('ORDER_LOCKED');
      expect((await t.api.ok(o.actionUrlLock)).statusId).toBe('ORDER_LOCKED');
      const edit = await t.api.post(o.orderUrl, { orderDate: '2026-01-01T00:00:00' });
      expect(edit).toMatchObject({ status: 400, body: { msg: 'Order S-4 is locked and cannot be modified' } });
      expect(
        (
          await t.api.post('shipment/', {
            shipmentTypeId: 'SALES_SHIPMENT',
            primaryOrderUrl: o.orderUrl,
            statusId: 'SHIPMENT_INPUT',
            shipmentItemList: [],
          })
        ).status,
      ).toBe(200);
      expect((await t.api.ok(o.actionUrlComplete)).statusId).toBe('ORDER_COMPLETED');
    });

    it('cancels: ORDER_CANCELLED, its unshipped shipments cancelled, no more complete or shipments', async () => {
      const { order, shipment } = await orderWithShipment(t.api, 'S-5');
      const c = await t.api.ok(order.actionUrlCancel);
      expect(c.statusId).toBe('ORDER_CANCELLED');
      expect(c.invalidations).toContain(shipment.shipmentUrl);
      expect((await t.api.get(shipment.shipmentUrl)).body.statusId).toBe('SHIPMENT_CANCELLED');
      expect((await t.api.ok(order.actionUrlCancel)).statusId).toBe('ORDER_CANCELLED');
      expect(await t.api.post(order.actionUrlComplete)).toMatchObject({
        status: 400,
        body: { msg: 'Order S-5 is cancelled and cannot be completed' },
      });
      const more = await t.api.post('shipment/', {
        shipmentTypeId: 'SALES_SHIPMENT',
        primaryOrderUrl: order.orderUrl,
        statusId: 'SHIPMENT_INPUT',
        shipmentItemList: [],
      });
      expect(more).toMatchObject({ status: 400, body: { msg: 'Order S-5 is cancelled and cannot be modified' } });
    });

    it('reserves all and per item without changing the order', async () => {
      const o = await t.api.ok('order', orderBody('S-6'));
      expect((await t.api.ok(o.reserveAllUrl)).statusId).toBe('ORDER_CREATED');
      expect((await t.api.ok(o.orderItemList[0].reserveUrl)).orderId).toBe('S-6');
    });
  });

  describe('shipment', () => {
    it('moves SHIPMENT_INPUT to SHIPMENT_SHIPPED by POST statusId, other fields unchanged', async () => {
      const { shipment: s } = await orderWithShipment(t.api, 'S-10');
      const shipped = await t.api.ok(s.shipmentUrl, { statusId: 'SHIPMENT_SHIPPED' });
      expect(shipped.statusId).toBe('SHIPMENT_SHIPPED');
      for (const f of [
        'shipmentId',
        'shipmentIdUser',
        'shipmentUrl',
        'shipmentTypeId',
        'primaryOrderUrl',
        'shipmentItemList',
        'createdDate',
        'actionUrlShip',
      ]) {
        expect(shipped[f]).toEqual(s[f]);
      }
      expect(shipped.statusIdHistoryList.map((h: { statusId: string | null }) => h.statusId)).toEqual([null, 'SHIPMENT_SHIPPED']);
    });

    it('packs, unpacks, ships and answers an action whose state is reached already as is', async () => {
      const { shipment: s } = await orderWithShipment(t.api, 'S-11');
      expect((await t.api.ok(s.actionUrlPack)).statusId).toBe('SHIPMENT_PACKED');
      expect((await t.api.ok(s.actionUrlPack)).statusId).toBe('SHIPMENT_PACKED');
      expect((await t.api.ok(s.actionUrlUnpack)).statusId).toBe('SHIPMENT_INPUT');
      expect((await t.api.ok(s.actionUrlUnpack)).statusId).toBe('SHIPMENT_INPUT');
      expect((await t.api.ok(s.actionUrlPack)).statusId).toBe('SHIPMENT_PACKED');
      expect((await t.api.ok(s.actionUrlShip)).statusId).toBe('SHIPMENT_SHIPPED');
      expect((await t.api.ok(s.actionUrlShip)).statusId).toBe('SHIPMENT_SHIPPED');
      expect((await t.api.ok(s.actionUrlTransfer)).statusId).toBe('SHIPMENT_SHIPPED');
    });

    it('keeps SHIPMENT_SHIPPED final: no cancel, unpack or other status', async () => {
      const { shipment: s } = await orderWithShipment(t.api, 'S-12');
      await t.api.ok(s.actionUrlShip);
      for (const a of [
        t.api.post(s.actionUrlCancel),
        t.api.post(s.actionUrlUnpack),
        t.api.post(s.shipmentUrl, { statusId: 'SHIPMENT_INPUT' }),
      ]) {
        const r = await a;
        expect(r.status).toBe(400);
        expect(r.body.msg).toMatch(/is shipped/);
      }
    });

    it('cancels from input; a cancelled shipment cannot ship', async () => {
      const { shipment: s } = await orderWithShipment(t.api, 'S-13');
      expect((await t.api.ok(s.actionUrlCancel)).statusId).toBe('SHIPMENT_CANCELLED');
      expect((await t.api.ok(s.actionUrlCancel)).statusId).toBe('SHIPMENT_CANCELLED');
      const r = await t.api.post(s.actionUrlShip);
      expect(r.status).toBe(400);
      expect(r.body.msg).toMatch(/is cancelled/);
    });

    it('refuses a status that is not a shipment status', async () => {
      const { shipment: s } = await orderWithShipment(t.api, 'S-14');
      const r = await t.api.post(s.shipmentUrl, { statusId: 'SHIPMENT_TELEPORTED' });
      expect(r.status).toBe(400);
      expect(r.body.msg).toMatch(/SHIPMENT_TELEPORTED is not a shipment status/);
    });
  });

  describe('inventory variance', () => {
    it('is created PHSCL_INV_COMMITTED, applied at once and closed: cancel is refused', async () => {
      const v = await t.api.ok('inventoryvariance', varianceBody());
      expect(v.statusId).toBe('PHSCL_INV_COMMITTED');
      const c = await t.api.post(v.actionUrlCancel);
      expect(c.status).toBe(400);
      expect(c.body.msg).toMatch(/committed and closed/);
    });

    it('created PHSCL_INV_CREATED waits; committing it applies it; a created one can be cancelled', async () => {
      const before = t.sb.admin.stockOnHand(demo.a01, demo.mugBlue);
      const v = await t.api.ok('inventoryvariance', varianceBody({ statusId: 'PHSCL_INV_CREATED' }));
      expect(t.sb.admin.stockOnHand(demo.a01, demo.mugBlue)).toBe(before);
      expect((await t.api.ok(v.physicalInventoryUrl, { statusId: 'PHSCL_INV_COMMITTED' })).statusId).toBe('PHSCL_INV_COMMITTED');
      expect(t.sb.admin.stockOnHand(demo.a01, demo.mugBlue)).toBe(before + 5);
      const w = await t.api.ok('inventoryvariance', varianceBody({ statusId: 'PHSCL_INV_CREATED' }));
      expect((await t.api.ok(w.actionUrlCancel)).statusId).toBe('PHSCL_INV_CANCELLED');
      expect(t.sb.admin.stockOnHand(demo.a01, demo.mugBlue)).toBe(before + 5);
    });
  });
});
