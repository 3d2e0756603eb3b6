import { describe, expect, it } from 'vitest';
import { DATE_TIME, demo, orderBody, orderWithShipment, useSandbox, varianceBody } from './helpers.js';

/** docs/service.md "Entities": every resource and its fields, as the sandbox answers them. */
// The spec profile's answers; the observed profile's differences are in profile-*.test.ts.
const t = useSandbox({ profile: 'spec' });
const URL_FORM = /^\/demo\/api\/[a-z]+\/[^/]+$/;

describe('resources (spec section 2)', () => {
  describe('2.1 order', () => {
    it('answers every field of the order table with the URLs built on the orderId', async () => {
      const o = await t.api.ok('order', orderBody('R-100'));
      expect(o).toMatchObject({
        orderId: 'R-100',
        orderUrl: '/demo/api/order/R-100',
        orderTypeId: 'SALES_ORDER',
        orderHistoryListUrl: '/demo/api/order/R-100/history/',
        actionUrlLock: '/demo/api/order/R-100/lock',
        actionUrlComplete: '/demo/api/order/R-100/complete',
        actionUrlCancel: '/demo/api/order/R-100/cancel',
        reserveAllUrl: '/demo/api/order/R-100/reserveall',
        statusId: 'ORDER_CREATED',
        originFacilityUrl: demo.main,
        orderAdjustmentList: [],
        orderRoleList: [],
        contentList: [],
        userFieldDataList: [],
        shipmentUrlList: [],
      });
      for (const f of ['lastUpdatedDate', 'createdDate', 'orderDate']) expect(o[f]).toMatch(DATE_TIME);
      expect(Array.isArray(o.invalidations)).toBe(true);
    });

    it('totals quantity times unitPrice over the items', async () => {
      const o = await t.api.ok('order', orderBody('R-101'));
      expect(o.orderItemListTotal).toBeCloseTo(2 * 12.5 + 3 * 3.1, 9);
    });

    it('gives each item a zero-padded orderItemUrl and a reserveUrl under it', async () => {
      const o = await t.api.ok('order', orderBody('R-102'));
      expect(o.orderItemList).toHaveLength(2);
      o.orderItemList.forEach((item: Record<string, unknown>, i: number) => {
        expect(item.orderItemUrl).toMatch(/^\/demo\/api\/order\/R-102\/orderItem\/0+\d+$/);
        expect(item.orderItemUrl).toBe(`/demo/api/order/R-102/orderItem/0000${i + 1}`);
        expect(item.reserveUrl).toBe(`${item.orderItemUrl}/reserve`);
      });
      expect(o.orderItemList[1]).toMatchObject({ productId: 'SKU-0003', productUrl: demo.sku3, unitPrice: 3.1, quantity: 3 });
    });

    it('keeps an orderDate sent by the client', async () => {
      const o = await t.api.ok('order', orderBody('R-103', { orderDate: '2026-11-20T14:03:11' }));
      expect(o.orderDate).toBe('2026-11-20T14:03:11');
    });
  });

  describe('2.2 shipment', () => {
    it('answers every field of the shipment table', async () => {
      const { order, shipment: s } = await orderWithShipment(t.api, 'R-200');
      expect(s.shipmentId).toEqual(expect.any(String));
      const url = `/demo/api/shipment/${s.shipmentId}`;
      expect(s).toMatchObject({
        shipmentIdUser: 'user-name-1',
        shipmentUrl: url,
        shipmentTypeId: 'SALES_SHIPMENT',
        primaryOrderUrl: order.orderUrl,
        statusId: 'SHIPMENT_INPUT',
        actionUrlCancel: `${url}/cancel`,
        actionUrlPack: `${url}/pack`,
        actionUrlUnpack: `${url}/unpack`,
        actionUrlShip: `${url}/ship`,
        actionUrlTransfer: `${url}/transfer`,
        userFieldDataList: [],
        contentList: [],
        transferList: [],
      });
      expect(s.createdDate).toMatch(DATE_TIME);
      expect(s.lastUpdatedDate).toMatch(DATE_TIME);
      expect(s.shipmentItemList).toEqual([
        { facilityUrl: demo.a01, productId: 'MUG-BLUE', productUrl: demo.mugBlue, quantity: 2 },
        { facilityUrl: demo.a01, productId: 'MUG-RED', productUrl: demo.mugRed, quantity: 1 },
      ]);
    });

    it('starts the status history with a null statusId, an integer txStamp and the user login URL', async () => {
      const { shipment: s } = await orderWithShipment(t.api, 'R-201');
      expect(s.statusIdHistoryList).toHaveLength(1);
      const [first] = s.statusIdHistoryList;
      expect(first.statusId).toBeNull();
      expect(Number.isInteger(first.txStamp)).toBe(true);
      expect(first.userLoginUrl).toMatch(/^\/demo\/api\/userlogin\/[^/]+$/);
      expect((await t.api.get(first.userLoginUrl)).status).toBe(200);
    });
  });

  describe('2.3 inventory variance', () => {
    it('answers every field, the date with milliseconds, and adds productId to each item', async () => {
      const v = await t.api.ok('inventoryvariance', varianceBody());
      expect(v.physicalInventoryId).toEqual(expect.any(String));
      const url = `/demo/api/inventoryvariance/${v.physicalInventoryId}`;
      expect(v).toMatchObject({
        physicalInventoryUrl: url,
        physicalInventoryTypeId: 'FACILITY',
        physicalInventoryDate: '2026-11-21T19:00:00.000',
        statusId: 'PHSCL_INV_COMMITTED',
        facilityUrl: demo.a01,
        actionUrlCancel: `${url}/cancel`,
        contentList: [],
      });
      expect(v.createdDate).toMatch(DATE_TIME);
      expect(v.inventoryItemVarianceList[0]).toMatchObject({
        facilityUrl: demo.a01,
        productUrl: demo.mugBlue,
        productId: 'MUG-BLUE',
        quantityOnHandVar: 5,
      });
      expect(v.statusIdHistoryList[0]).toMatchObject({ statusId: 'PHSCL_INV_COMMITTED', txStamp: expect.any(Number) });
    });

    it('ignores quantityOnHandCount for the stock level', async () => {
      const before = t.sb.admin.stockOnHand(demo.a01, demo.mugBlue);
      await t.api.ok(
        'inventoryvariance',
        varianceBody({ inventoryItemVarianceList: [{ productUrl: demo.mugBlue, quantityOnHandVar: 1, quantityOnHandCount: 999 }] }),
      );
      expect(t.sb.admin.stockOnHand(demo.a01, demo.mugBlue)).toBe(before + 1);
    });
  });

  describe('2.4 product bill of materials', () => {
    it('answers productAssocList entries of MANUF_COMPONENT with their URL and items', async () => {
      const p = (await t.api.get(demo.giftSet)).body;
      expect(p.productId).toBe('GIFT-SET');
      expect(p.productAssocList).toHaveLength(1);
      expect(p.productAssocList[0]).toMatchObject({
        productAssocTypeId: 'MANUF_COMPONENT',
        productAssocUrl: expect.stringMatching(/^\/demo\/api\/productassoc\/[^/]+$/),
        productAssocItemList: [
          { productUrl: demo.mugBlue, quantity: 2 },
          { productUrl: demo.mugRed, quantity: 1 },
        ],
      });
    });

    it('uses an internal id in the product URL that can differ from productId (rule 1)', async () => {
      const p = (await t.api.get(demo.sku3)).body;
      expect(p.productId).toBe('SKU-0003');
      expect(p.productUrl).toBe('/demo/api/product/10003');
      expect((await t.api.get('/demo/api/product/SKU-0003')).status).toBe(404);
    });
  });

  it('writes every URL field as /<account>/api/<collection>/<id>', async () => {
    const { order, shipment } = await orderWithShipment(t.api, 'R-300');
    const v = await t.api.ok('inventoryvariance', varianceBody());
    for (const u of [
      order.orderUrl,
      order.originFacilityUrl,
      shipment.shipmentUrl,
      shipment.primaryOrderUrl,
      v.physicalInventoryUrl,
      v.facilityUrl,
    ]) {
      expect(u).toMatch(URL_FORM);
    }
  });
});
