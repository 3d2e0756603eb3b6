import { describe, expect, it } from 'vitest';
import { localDateTime } from '../../src/time/date-format.js';
import { demo, orderBody, orderWithShipment, shipmentBody, useSandbox, varianceBody } from './helpers.js';

/** The effects of writes on stock, orders and histories (issue 3 "Every effect"). */
let now = new Date(2026, 10, 21, 9, 30, 15).getTime();
// The spec profile's answers; the observed profile's differences are in profile-*.test.ts.
const t = useSandbox({ profile: 'spec', clock: () => now });
const onHand = (f: string, p: string) => t.sb.admin.stockOnHand(f, p);
const mugRows = async () => (await t.api.rows('inventoryitem')).filter((r) => r.productUrl === demo.mugBlue && r.facilityUrl === demo.a01);

describe('effects', () => {
  describe('when a shipment reaches SHIPMENT_SHIPPED', () => {
    it("takes its quantities off the stock of its items' locations, once", async () => {
      expect([onHand(demo.a01, demo.mugBlue), onHand(demo.a01, demo.mugRed)]).toEqual([40, 30]);
      const { shipment } = await orderWithShipment(t.api, 'F-1');
      expect(onHand(demo.a01, demo.mugBlue)).toBe(40);
      await t.api.ok(shipment.shipmentUrl, { statusId: 'SHIPMENT_SHIPPED' });
      expect([onHand(demo.a01, demo.mugBlue), onHand(demo.a01, demo.mugRed)]).toEqual([38, 29]);
      await t.api.ok(shipment.shipmentUrl, { statusId: 'SHIPMENT_SHIPPED' });
      await t.api.ok(shipment.actionUrlShip);
      expect([onHand(demo.a01, demo.mugBlue), onHand(demo.a01, demo.mugRed)]).toEqual([38, 29]);
      expect(onHand(demo.n01, demo.mugBlue)).toBe(12);
    });

    it('takes from the lot rows in collection order, each down to zero', async () => {
      const items = [{ facilityUrl: demo.a01, productId: 'MUG-BLUE', productUrl: demo.mugBlue, quantity: 30 }];
      const { shipment } = await orderWithShipment(t.api, 'F-2', { shipmentItemList: items });
      await t.api.ok(shipment.actionUrlShip);
      expect((await mugRows()).map((r) => [r.lotId, r.quantityOnHand])).toEqual([
        ['LOT-MB-1', 0],
        ['LOT-MB-2', 10],
      ]);
    });

    it('lets stock go below zero on a row without lot when the shipment takes more than there is', async () => {
      const items = [{ facilityUrl: demo.a01, productId: 'MUG-BLUE', productUrl: demo.mugBlue, quantity: 50 }];
      const { shipment } = await orderWithShipment(t.api, 'F-3', { shipmentItemList: items });
      await t.api.ok(shipment.actionUrlShip);
      expect(onHand(demo.a01, demo.mugBlue)).toBe(-10);
      expect((await mugRows()).find((r) => r.lotId === undefined)?.quantityOnHand).toBe(-10);
    });

    it('takes nothing while it is packed, or when it is cancelled', async () => {
      const { shipment } = await orderWithShipment(t.api, 'F-4');
      await t.api.ok(shipment.actionUrlPack);
      await t.api.ok(shipment.actionUrlCancel);
      expect(onHand(demo.a01, demo.mugBlue)).toBe(40);
    });
  });

  describe('a committed variance', () => {
    it('adds its quantityOnHandVar on a row of that location and product without lot', async () => {
      await t.api.ok('inventoryvariance', varianceBody());
      expect(onHand(demo.a01, demo.mugBlue)).toBe(45);
      expect((await mugRows()).map((r) => [r.lotId ?? null, r.quantityOnHand])).toEqual([
        ['LOT-MB-1', 25],
        ['LOT-MB-2', 15],
        [null, 5],
      ]);
      await t.api.ok(
        'inventoryvariance',
        varianceBody({ inventoryItemVarianceList: [{ productUrl: demo.mugBlue, quantityOnHandVar: -7.5 }] }),
      );
      expect(onHand(demo.a01, demo.mugBlue)).toBe(37.5);
    });

    it('adds to the row of its lot when it names one', async () => {
      await t.api.ok(
        'inventoryvariance',
        varianceBody({ inventoryItemVarianceList: [{ productUrl: demo.mugBlue, quantityOnHandVar: -5, lotId: 'LOT-MB-2' }] }),
      );
      expect((await mugRows()).map((r) => r.quantityOnHand)).toEqual([25, 10]);
    });

    it('is not idempotent: the same body twice is two variances applied twice', async () => {
      const a = await t.api.ok('inventoryvariance', varianceBody());
      const b = await t.api.ok('inventoryvariance', varianceBody());
      expect(a.physicalInventoryId).not.toBe(b.physicalInventoryId);
      expect(onHand(demo.a01, demo.mugBlue)).toBe(50);
    });
  });

  it('lists every shipment of an order on the order', async () => {
    const { order, shipment } = await orderWithShipment(t.api, 'F-10');
    const second = await t.api.ok('shipment/', shipmentBody(order.orderUrl));
    expect((await t.api.get(order.orderUrl)).body.shipmentUrlList).toEqual([shipment.shipmentUrl, second.shipmentUrl]);
  });

  it("writes dates in the service's format from its clock, and moves lastUpdatedDate on each change", async () => {
    now = new Date(2026, 10, 21, 9, 30, 15).getTime();
    const o = await t.api.ok('order', orderBody('F-20'));
    expect(o.createdDate).toBe('2026-11-21T09:30:15');
    expect(o.orderDate).toBe(o.createdDate);
    now += 65_000;
    const s = await t.api.ok('shipment/', shipmentBody(o.orderUrl));
    now += 1_000;
    const shipped = await t.api.ok(s.shipmentUrl, { statusId: 'SHIPMENT_SHIPPED' });
    expect(shipped.createdDate).toBe('2026-11-21T09:31:20');
    expect(shipped.lastUpdatedDate).toBe(localDateTime(now));
    expect(shipped.statusIdHistoryList.map((h: { txStamp: number }) => h.txStamp)).toEqual([now - 1_000, now]);
    expect((await t.api.get(o.orderUrl)).body.lastUpdatedDate).toBe('2026-11-21T09:31:20');
  });
});
