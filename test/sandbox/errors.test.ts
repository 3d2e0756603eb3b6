import { describe, expect, it } from 'vitest';
import {
  INTEGRITY_DUPLICATE,
  INTEGRITY_MISSING,
  demo,
  orderBody,
  orderWithShipment,
  shipmentBody,
  useSandbox,
  varianceBody,
} from './helpers.js';

/** docs/service.md "Errors" and "What the program was built for": 400 with {msg}, in the spec's words. */
// The spec profile's answers; the observed profile's differences are in profile-*.test.ts.
const t = useSandbox({ profile: 'spec' });

describe('errors (spec section 7)', () => {
  describe('a create that would produce a duplicate', () => {
    it('of orderId answers 400 with the duplicate-object message and changes nothing', async () => {
      await t.api.ok('order', orderBody('X-1'));
      const r = await t.api.post('order', orderBody('X-1', { originFacilityUrl: demo.north }));
      expect(r.status).toBe(400);
      expect(Object.keys(r.body)).toEqual(['msg']);
      expect(r.body.msg).toBe(`${INTEGRITY_DUPLICATE}order with orderId X-1`);
      expect((await t.api.get('order/X-1')).body.originFacilityUrl).toBe(demo.main);
      expect(t.sb.admin.counters().creates.order).toBe(1);
    });

    it('of a client shipmentId answers the same family', async () => {
      const { order } = await orderWithShipment(t.api, 'X-2', { shipmentId: 'SHP-X-2' });
      const r = await t.api.post('shipment/', shipmentBody(order.orderUrl, { shipmentId: 'SHP-X-2' }));
      expect(r).toMatchObject({ status: 400, body: { msg: `${INTEGRITY_DUPLICATE}shipment with shipmentId SHP-X-2` } });
      expect((await t.api.get(order.orderUrl)).body.shipmentUrlList).toHaveLength(1);
    });
  });

  describe('a reference to an object that does not exist answers 400 with the missing-reference message', () => {
    it('for an order item product', async () => {
      const r = await t.api.post(
        'order',
        orderBody('X-3', { orderItemList: [{ productId: 'NOPE', productUrl: '/demo/api/product/NOPE', unitPrice: 1, quantity: 1 }] }),
      );
      expect(r).toMatchObject({
        status: 400,
        body: { msg: `${INTEGRITY_MISSING}product /demo/api/product/NOPE (orderItemList[0].productUrl)` },
      });
      expect((await t.api.get('order/X-3')).status).toBe(404);
    });

    it('for the origin facility, the primary order, a shipment location and a variance product', async () => {
      const cases = [
        t.api.post('order', orderBody('X-4', { originFacilityUrl: '/demo/api/facility/999' })),
        t.api.post('shipment/', shipmentBody('/demo/api/order/NO-SUCH')),
        t.api.post('order', orderBody('X-5')).then((o) =>
          t.api.post(
            'shipment/',
            shipmentBody(o.body.orderUrl, {
              shipmentItemList: [{ facilityUrl: '/demo/api/facility/998', productId: 'MUG-BLUE', productUrl: demo.mugBlue, quantity: 1 }],
            }),
          ),
        ),
        t.api.post(
          'inventoryvariance',
          varianceBody({ inventoryItemVarianceList: [{ productUrl: '/demo/api/product/GONE', quantityOnHandVar: 1 }] }),
        ),
        t.api.post('inventoryvariance', varianceBody({ facilityUrl: '/demo/api/facility/997', inventoryItemVarianceList: [] })),
      ];
      for (const r of await Promise.all(cases)) {
        expect(r.status).toBe(400);
        expect(r.body.msg.startsWith(INTEGRITY_MISSING)).toBe(true);
      }
      expect(t.sb.admin.counters().creates).toEqual({ order: 1, shipment: 0, variance: 0 });
    });
  });

  describe('other business errors answer 400 with {msg}', () => {
    it('an order whose origin is a location', async () => {
      const r = await t.api.post('order', orderBody('X-6', { originFacilityUrl: demo.a01 }));
      expect(r.status).toBe(400);
      expect(r.body.msg).toMatch(/originFacilityUrl: \/demo\/api\/facility\/10001 \(A-01\) is a location, not a magazine/);
    });

    it("an order item whose productId is not the product's", async () => {
      const r = await t.api.post(
        'order',
        orderBody('X-7', { orderItemList: [{ productId: 'SKU-0004', productUrl: demo.sku3, unitPrice: 1, quantity: 1 }] }),
      );
      expect(r.status).toBe(400);
      expect(r.body.msg).toMatch(
        /orderItemList\[0\]\.productId: SKU-0004 is not the productId of \/demo\/api\/product\/10003 \(SKU-0003\)/,
      );
    });

    it('a variance not at 19:00, of another type, or with an item on another facility', async () => {
      const bad = [
        varianceBody({ physicalInventoryDate: '2026-11-21T18:00:00.000' }),
        varianceBody({ physicalInventoryTypeId: 'CYCLE_COUNT' }),
        varianceBody({ inventoryItemVarianceList: [{ facilityUrl: demo.a02, productUrl: demo.mugBlue, quantityOnHandVar: 1 }] }),
        varianceBody({ facilityUrl: demo.main, inventoryItemVarianceList: [] }),
      ];
      const msgs = [];
      for (const b of bad) {
        const r = await t.api.post('inventoryvariance', b);
        expect(r.status).toBe(400);
        msgs.push(r.body.msg);
      }
      expect(msgs[0]).toMatch(/must be at 19:00/);
      expect(msgs[1]).toMatch(/physicalInventoryTypeId must be FACILITY/);
      expect(msgs[2]).toMatch(/differs from the variance's facilityUrl/);
      expect(msgs[3]).toMatch(/is a magazine/);
      expect(t.sb.admin.counters().creates.variance).toBe(0);
    });

    it('a malformed body, a body that is not an object, and missing fields named by path', async () => {
      const malformed = await t.api.post('order', undefined, { raw: '{"orderId": "X-8",' });
      expect(malformed.status).toBe(400);
      expect(malformed.body.msg).toMatch(/^Malformed JSON body/);
      expect((await t.api.post('order', [1, 2])).body.msg).toMatch(/must be a JSON object/);
      const missing = await t.api.post('order', {
        orderTypeId: 'SALES_ORDER',
        orderItemList: [{ productUrl: demo.sku1, unitPrice: 'x', quantity: 1 }],
      });
      expect(missing.status).toBe(400);
      expect(missing.body.msg).toMatch(/orderId: is required/);
      expect(missing.body.msg).toMatch(/originFacilityUrl: is required/);
      expect(missing.body.msg).toMatch(/orderItemList\[0\]\.productId: is required/);
      expect(missing.body.msg).toMatch(/orderItemList\[0\]\.unitPrice: Invalid input: expected number/);
    });

    it('a shipment created in another status than SHIPMENT_INPUT', async () => {
      const o = await t.api.ok('order', orderBody('X-9'));
      const r = await t.api.post('shipment/', shipmentBody(o.orderUrl, { statusId: 'SHIPMENT_SHIPPED' }));
      expect(r.status).toBe(400);
      expect(r.body.msg).toMatch(/created in SHIPMENT_INPUT/);
    });
  });

  it('answers 404 {msg} for unknown entities and collections, 405 for methods and collections it does not write', async () => {
    expect((await t.api.get('order/NONE')).status).toBe(404);
    expect((await t.api.post('order/NONE', {})).status).toBe(404);
    expect((await t.api.post('order/NONE/complete', {})).status).toBe(404);
    expect((await t.api.get('warehouse')).status).toBe(404);
    expect((await t.api.post('facility', {})).status).toBe(405);
    expect((await t.api.post(demo.a01, {})).status).toBe(405);
    expect((await t.api.call('DELETE', 'order/NONE')).status).toBe(405);
    expect((await t.api.call('PUT', 'order')).status).toBe(405);
  });
});
