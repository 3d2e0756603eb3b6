import { describe, expect, it } from 'vitest';
import { decoders as d, ShapeError } from '../../../src/client/answers/shape.js';

/**
 * Answers shaped like the public samples of the real service (docs/service.md, "Null and
 * absent fields"): action URLs null or missing out of state, empty side lists null, ids as JSON numbers, txStamp
 * in epoch seconds, explicit nulls in collection rows.
 */
const api = '/acme/api';

const completedOrder = {
  orderId: 'WEB-1',
  orderUrl: `${api}/order/WEB-1`,
  orderTypeId: 'SALES_ORDER',
  statusId: 'ORDER_COMPLETED',
  originFacilityUrl: `${api}/facility/10000`,
  orderDate: '2026-11-20T14:03:11',
  createdDate: '2026-11-20T14:03:12',
  lastUpdatedDate: '2026-11-20T14:03:15',
  actionUrlComplete: null,
  actionUrlLock: null,
  actionUrlCancel: null,
  actionUrlEdit: `${api}/order/WEB-1/edit`,
  reserveAllUrl: null,
  orderItemList: [
    {
      orderItemUrl: `${api}/order/WEB-1/orderItem/00001`,
      reserveUrl: null,
      productId: 10003,
      productUrl: `${api}/product/10003`,
      unitPrice: 4,
      quantity: 1,
    },
  ],
  orderItemListTotal: 4,
  orderAdjustmentList: null,
  orderRoleList: null,
  contentList: null,
  userFieldDataList: null,
  invoiceUrlList: null,
  shipmentUrlList: [`${api}/shipment/328966`],
};

const shippedShipment = {
  shipmentId: 328966,
  shipmentIdUser: 'WEB-1-1',
  shipmentUrl: `${api}/shipment/328966`,
  shipmentTypeId: 'SALES_SHIPMENT',
  primaryOrderUrl: `${api}/order/WEB-1`,
  statusId: 'SHIPMENT_SHIPPED',
  actionUrlShip: null,
  actionUrlPack: null,
  actionUrlUnpack: null,
  actionUrlCancel: null,
  shipmentItemList: [{ facilityUrl: `${api}/facility/10001`, productId: 10003, productUrl: `${api}/product/10003`, quantity: 1 }],
  statusIdHistoryList: [
    { statusId: null, txStamp: 1763647391, userLoginUrl: `${api}/userlogin/api` },
    { statusId: 'SHIPMENT_SHIPPED', txStamp: 1763647395, userLoginUrl: null },
  ],
  contentList: null,
  userFieldDataList: null,
  transferList: null,
};

describe('response schemas', () => {
  describe('when a completed order answers null actions, null side lists and numeric product ids', () => {
    it('reads it, with null as absent and ids as strings', () => {
      const o = d.orderRead(completedOrder);
      expect(o.statusId).toBe('ORDER_COMPLETED');
      expect(o.actionUrlComplete).toBeUndefined();
      expect(o.actionUrlEdit).toBe(`${api}/order/WEB-1/edit`);
      expect(o.orderItemList[0]).toMatchObject({ productId: '10003', reserveUrl: undefined, quantity: 1 });
      expect(o.shipmentUrlList).toEqual([`${api}/shipment/328966`]);
    });

    it('reads the answer of complete whatever it carries, even nothing', () => {
      expect(d.order(completedOrder).statusId).toBe('ORDER_COMPLETED');
      expect(d.order({})).toMatchObject({ orderItemList: [] });
    });
  });

  describe("when an order's shipment list is null or missing", () => {
    it('reads null as no shipment, and keeps a missing list apart (the answer does not say)', () => {
      expect(d.orderRead({ ...completedOrder, shipmentUrlList: null }).shipmentUrlList).toEqual([]);
      const { shipmentUrlList: _, ...withoutList } = completedOrder;
      expect(d.orderRead(withoutList).shipmentUrlList).toBeUndefined();
    });
  });

  describe('when the action fields are missing altogether', () => {
    it('reads the order and the shipment', () => {
      const { actionUrlComplete: _c, actionUrlLock: _l, actionUrlCancel: _x, actionUrlEdit: _e, ...order } = completedOrder;
      expect(d.orderRead(order).orderUrl).toBe(`${api}/order/WEB-1`);
      const { actionUrlShip: _s, actionUrlCancel: _sc, ...shipment } = shippedShipment;
      expect(d.shipmentRead(shipment).statusId).toBe('SHIPMENT_SHIPPED');
    });
  });

  describe('when a shipped shipment answers a numeric id, null actions and txStamp in seconds', () => {
    it('reads the id as a string and does not care about the txStamp unit', () => {
      const s = d.shipmentRead(shippedShipment);
      expect(s.shipmentId).toBe('328966');
      expect(s.actionUrlShip).toBeUndefined();
      expect(s.shipmentItemList[0]).toMatchObject({ productId: '10003', quantity: 1 });
      expect(s.statusIdHistoryList?.map((h) => h.txStamp)).toEqual([1763647391, 1763647395]);
      expect(d.shipmentCreated({ ...shippedShipment, statusId: 'SHIPMENT_INPUT', shipmentItemList: null }).shipmentItemList).toEqual([]);
    });
  });

  describe('when a product has no bill of materials (productAssocList: null) or an entry lacks fields', () => {
    it('reads null as no entry, and an entry without productAssocUrl or item fields as it is', () => {
      expect(d.product({ productId: 'SPARE', productUrl: `${api}/product/10040`, productAssocList: null }).productAssocList).toEqual([]);
      const p = d.product({
        productId: 10041,
        productAssocList: [
          { productAssocTypeId: 'MANUF_COMPONENT', productAssocUrl: null, productAssocItemList: [{ productUrl: null, quantity: 2 }] },
        ],
      });
      expect(p.productId).toBe('10041');
      expect(p.productAssocList[0]).toMatchObject({
        productAssocUrl: undefined,
        productAssocItemList: [{ productUrl: undefined, quantity: 2 }],
      });
    });
  });

  describe('when a variance answers a numeric physicalInventoryId', () => {
    it('reads it as a string', () => {
      const v = d.variance({
        physicalInventoryId: 5001,
        physicalInventoryUrl: `${api}/inventoryvariance/5001`,
        statusId: 'PHSCL_INV_COMMITTED',
        inventoryItemVarianceList: null,
        contentList: null,
      });
      expect([v.physicalInventoryId, v.inventoryItemVarianceList]).toEqual(['5001', []]);
    });
  });

  describe('when collection rows carry numeric ids, explicit nulls and nested lists', () => {
    it('reads every row', () => {
      const rows = d.productRows({
        productId: [10003, 'MUG-BLUE'],
        productUrl: [`${api}/product/10003`, `${api}/product/10007`],
        internalName: [null, 'Blue mug'],
        statusId: ['PRODUCT_ACTIVE', null],
        productAssocList: [null, [{ productAssocTypeId: 'MANUF_COMPONENT' }]],
      });
      expect(rows.map((r) => [r.productId, r.internalName, r.statusId])).toEqual([
        ['10003', undefined, 'PRODUCT_ACTIVE'],
        ['MUG-BLUE', 'Blue mug', undefined],
      ]);
      const stock = d.inventoryRows({
        productUrl: [`${api}/product/10003`],
        facilityUrl: [`${api}/facility/10001`],
        quantityOnHand: [null],
        lotId: [7],
      });
      expect(stock[0]).toMatchObject({ quantityOnHand: undefined, lotId: '7' });
    });
  });

  describe('when an answer lacks what its step needs', () => {
    it.each([
      ['create order without orderUrl', () => d.orderCreated({ orderId: 'WEB-1', statusId: 'ORDER_CREATED' }), 'orderUrl: is missing'],
      ['read order with a null statusId', () => d.orderRead({ ...completedOrder, statusId: null }), 'statusId: is null'],
      [
        'create shipment with a null shipmentUrl',
        () => d.shipmentCreated({ ...shippedShipment, shipmentUrl: null }),
        'shipmentUrl: is null',
      ],
      ['read shipment without statusId', () => d.shipmentRead({ shipmentUrl: `${api}/shipment/1` }), 'statusId: is missing'],
      [
        'a collection row without its URL',
        () => d.productRows({ productId: ['A', 'B'], productUrl: [`${api}/product/1`] }),
        'row 1: productUrl: is missing',
      ],
    ])('%s: fails naming the field', (_name, decode, message) => {
      expect(decode).toThrow(ShapeError);
      expect(decode).toThrow(message);
    });

    it('does not fail on a field the step does not use', () => {
      // A shipment create answered with items in an unknown shape and a history without stamps.
      const s = d.shipmentCreated({
        shipmentUrl: `${api}/shipment/9`,
        shipmentItemList: [{ quantity: null }],
        statusIdHistoryList: [{ txStamp: null }],
      });
      expect(s.shipmentUrl).toBe(`${api}/shipment/9`);
    });
  });
});
