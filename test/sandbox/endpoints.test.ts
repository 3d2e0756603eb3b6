import { describe, expect, it } from 'vitest';
import { INTEGRITY_MISSING, demo, orderBody, orderWithShipment, shipmentBody, useSandbox, varianceBody } from './helpers.js';

/** docs/service.md "Requests" and "Calls the program makes", plus GET of every entity. */
// The spec profile's answers; the observed profile's differences are in profile-*.test.ts.
const t = useSandbox({ profile: 'spec' });

describe('endpoints (spec section 4)', () => {
  it('GET facility and GET product list the account', async () => {
    expect((await t.api.rows('facility')).length).toBe(12);
    expect((await t.api.rows('product')).length).toBeGreaterThanOrEqual(200);
  });

  it('POST order creates the order (rule 1); POST to its URL modifies it and answers the full entity (rule 2)', async () => {
    const o = await t.api.ok('order', orderBody('E-1'));
    const m = await t.api.ok(o.orderUrl, {
      orderDate: '2026-10-01T08:00:00',
      orderItemList: [
        { ...o.orderItemList[0], quantity: 4 },
        { productId: 'MUG-RED', productUrl: demo.mugRed, unitPrice: 2, quantity: 1 },
      ],
    });
    expect(m.orderDate).toBe('2026-10-01T08:00:00');
    expect(m.orderItemList.map((i: { orderItemUrl: string }) => i.orderItemUrl)).toEqual([
      o.orderItemList[0].orderItemUrl,
      '/demo/api/order/E-1/orderItem/00003',
    ]);
    expect(m.orderItemListTotal).toBe(4 * 12.5 + 2);
    expect(m.actionUrlComplete).toBe(o.actionUrlComplete);
  });

  it('refuses to change a read-only field of an order', async () => {
    const o = await t.api.ok('order', orderBody('E-2'));
    const r = await t.api.post(o.orderUrl, { orderId: 'E-other' });
    expect(r.status).toBe(400);
    expect(r.body.msg).toMatch(/orderId is read-only/);
    expect((await t.api.post(o.orderUrl, { orderId: 'E-2', statusId: 'ORDER_CREATED' })).status).toBe(200);
  });

  describe('POST shipment/', () => {
    it('generates a shipmentId when none is sent and keeps shipmentIdUser (rule 2)', async () => {
      const { shipment: a } = await orderWithShipment(t.api, 'E-10');
      const { shipment: b } = await orderWithShipment(t.api, 'E-11');
      expect(a.shipmentId).not.toBe(b.shipmentId);
      expect(a.shipmentIdUser).toBe('user-name-1');
    });

    it('keeps a shipmentId of the client, on the collection with or without the trailing slash', async () => {
      const o = await t.api.ok('order', orderBody('E-12'));
      expect((await t.api.ok('shipment', shipmentBody(o.orderUrl, { shipmentId: 'SHP-E-12' }))).shipmentUrl).toBe(
        '/demo/api/shipment/SHP-E-12',
      );
      expect((await t.api.ok('shipment/', shipmentBody(o.orderUrl, { shipmentId: 'SHP-E-12b' }))).shipmentId).toBe('SHP-E-12b');
      expect((await t.api.get('/demo/api/shipment/SHP-E-12')).body.shipmentId).toBe('SHP-E-12');
    });

    it('requires the source location on each item (rule 3)', async () => {
      const o = await t.api.ok('order', orderBody('E-13'));
      const r = await t.api.post(
        'shipment/',
        shipmentBody(o.orderUrl, { shipmentItemList: [{ productId: 'MUG-BLUE', productUrl: demo.mugBlue, quantity: 1 }] }),
      );
      expect(r.status).toBe(400);
      expect(r.body.msg).toMatch(/shipmentItemList\[0\]\.facilityUrl: is required/);
    });

    it('refuses a magazine as the source of an item: stock lives in locations', async () => {
      const o = await t.api.ok('order', orderBody('E-14'));
      const r = await t.api.post(
        'shipment/',
        shipmentBody(o.orderUrl, {
          shipmentItemList: [{ facilityUrl: demo.main, productId: 'MUG-BLUE', productUrl: demo.mugBlue, quantity: 1 }],
        }),
      );
      expect(r.status).toBe(400);
      expect(r.body.msg).toMatch(/is a magazine/);
    });

    it('lists the shipment on its order', async () => {
      const { order, shipment } = await orderWithShipment(t.api, 'E-15');
      expect((await t.api.get(order.orderUrl)).body.shipmentUrlList).toEqual([shipment.shipmentUrl]);
    });
  });

  it('POST order/<id>/complete answers the full order ORDER_COMPLETED', async () => {
    const o = await t.api.ok('order', orderBody('E-20'));
    expect(await t.api.ok('/demo/api/order/E-20/complete', {})).toMatchObject({
      orderId: 'E-20',
      statusId: 'ORDER_COMPLETED',
      orderItemList: o.orderItemList,
    });
  });

  it('POST inventoryvariance answers the full variance', async () => {
    const v = await t.api.ok('inventoryvariance', varianceBody());
    expect((await t.api.get(v.physicalInventoryUrl)).body).toMatchObject({
      physicalInventoryId: v.physicalInventoryId,
      inventoryItemVarianceList: v.inventoryItemVarianceList,
    });
  });

  describe('action URLs (rules 4 and 5)', () => {
    it('accept {} or anything else as body: the data sent is not read', async () => {
      const { shipment } = await orderWithShipment(t.api, 'E-30');
      expect((await t.api.post(shipment.actionUrlPack, undefined, { raw: 'not json at all' })).status).toBe(200);
      expect((await t.api.post(shipment.actionUrlUnpack, undefined, { raw: '' })).status).toBe(200);
      expect((await t.api.post(shipment.actionUrlShip, { statusId: 'SHIPMENT_CANCELLED' })).body.statusId).toBe('SHIPMENT_SHIPPED');
    });

    it('answer 405 to a GET', async () => {
      const o = await t.api.ok('order', orderBody('E-31'));
      expect((await t.api.get(o.actionUrlComplete)).status).toBe(405);
    });
  });

  describe('POST product/<id> (rule 4)', () => {
    const giftItems = [
      { productUrl: demo.mugBlue, quantity: 2 },
      { productUrl: demo.mugRed, quantity: 1 },
    ];

    it('requires productId and productUrl', async () => {
      for (const body of [
        { productUrl: demo.sku1, productAssocList: [] },
        { productId: 'SKU-0001', productAssocList: [] },
      ]) {
        const r = await t.api.post(demo.sku1, body);
        expect(r.status).toBe(400);
        expect(r.body.msg).toMatch(/needs both productId and productUrl/);
      }
    });

    it("refuses a productId or productUrl that is not the product's own", async () => {
      expect((await t.api.post(demo.sku1, { productId: 'SKU-0002', productUrl: demo.sku1 })).status).toBe(400);
      expect((await t.api.post(demo.sku1, { productId: 'SKU-0001', productUrl: demo.sku3 })).status).toBe(400);
    });

    it('creates the first entry without productAssocUrl on a product that has none', async () => {
      const p = await t.api.ok(demo.sku1, {
        productId: 'SKU-0001',
        productUrl: demo.sku1,
        productAssocList: [{ productAssocTypeId: 'MANUF_COMPONENT', productAssocItemList: [{ productUrl: demo.sku3, quantity: 2 }] }],
      });
      expect(p.productAssocList).toHaveLength(1);
      expect(p.productAssocList[0]).toMatchObject({
        productAssocTypeId: 'MANUF_COMPONENT',
        productAssocUrl: expect.stringMatching(/^\/demo\/api\/productassoc\//),
        productAssocItemList: [{ productUrl: demo.sku3, quantity: 2 }],
      });
      expect((await t.api.get(p.productAssocList[0].productAssocUrl)).status).toBe(200);
    });

    it('replaces the items of the entry named by productAssocUrl', async () => {
      const before = (await t.api.get(demo.giftSet)).body;
      const url = before.productAssocList[0].productAssocUrl;
      const p = await t.api.ok(demo.giftSet, {
        productId: 'GIFT-SET',
        productUrl: demo.giftSet,
        productAssocList: [
          { productAssocTypeId: 'MANUF_COMPONENT', productAssocUrl: url, productAssocItemList: [{ productUrl: demo.sku1, quantity: 3 }] },
        ],
      });
      expect(p.productAssocList).toEqual([
        { productAssocTypeId: 'MANUF_COMPONENT', productAssocUrl: url, productAssocItemList: [{ productUrl: demo.sku1, quantity: 3 }] },
      ]);
    });

    it('appends an extra entry when productAssocUrl is left out on a product that has one', async () => {
      const p = await t.api.ok(demo.giftSet, {
        productId: 'GIFT-SET',
        productUrl: demo.giftSet,
        productAssocList: [{ productAssocTypeId: 'MANUF_COMPONENT', productAssocItemList: [{ productUrl: demo.sku1, quantity: 3 }] }],
      });
      expect(p.productAssocList).toHaveLength(2);
      expect(p.productAssocList[0].productAssocItemList).toEqual(giftItems);
      expect(p.productAssocList[1].productAssocItemList).toEqual([{ productUrl: demo.sku1, quantity: 3 }]);
      expect(p.productAssocList[1].productAssocUrl).not.toBe(p.productAssocList[0].productAssocUrl);
    });

    it('refuses a wrong productAssocUrl, one of another product, and a type other than MANUF_COMPONENT', async () => {
      const other = (await t.api.get('/demo/api/product/20005')).body.productAssocList[0].productAssocUrl;
      const entry = (productAssocUrl: string, productAssocTypeId = 'MANUF_COMPONENT') => ({
        productId: 'GIFT-SET',
        productUrl: demo.giftSet,
        productAssocList: [{ productAssocTypeId, productAssocUrl, productAssocItemList: [{ productUrl: demo.sku1, quantity: 1 }] }],
      });
      const wrong = await t.api.post(demo.giftSet, entry('/demo/api/productassoc/999999'));
      expect(wrong).toMatchObject({ status: 400, body: { msg: expect.stringContaining(INTEGRITY_MISSING) } });
      expect((await t.api.post(demo.giftSet, entry(other))).status).toBe(400);
      const url = (await t.api.get(demo.giftSet)).body.productAssocList[0].productAssocUrl;
      expect((await t.api.post(demo.giftSet, entry(url, 'PRODUCT_VARIANT'))).status).toBe(400);
      expect((await t.api.get(demo.giftSet)).body.productAssocList[0].productAssocItemList).toEqual(giftItems);
    });

    it('refuses a component that does not exist, changing nothing', async () => {
      const r = await t.api.post(demo.sku1, {
        productId: 'SKU-0001',
        productUrl: demo.sku1,
        productAssocList: [
          { productAssocTypeId: 'MANUF_COMPONENT', productAssocItemList: [{ productUrl: '/demo/api/product/NOPE', quantity: 1 }] },
        ],
      });
      expect(r.body.msg).toBe(
        `${INTEGRITY_MISSING}product /demo/api/product/NOPE (productAssocList[0].productAssocItemList[0].productUrl)`,
      );
      expect((await t.api.get(demo.sku1)).body.productAssocList).toEqual([]);
    });
  });

  describe('GET of a single entity', () => {
    it('answers every kind of entity by its URL', async () => {
      const { order, shipment } = await orderWithShipment(t.api, 'E-40');
      const v = await t.api.ok('inventoryvariance', varianceBody());
      const item = (await t.api.rows('inventoryitem'))[0] as { inventoryItemUrl: string; quantityOnHand: number };
      for (const [url, key, value] of [
        [order.orderUrl, 'orderId', 'E-40'],
        [shipment.shipmentUrl, 'shipmentId', shipment.shipmentId],
        [v.physicalInventoryUrl, 'physicalInventoryId', v.physicalInventoryId],
        [demo.sku3, 'productId', 'SKU-0003'],
        [demo.a01, 'facilityName', 'A-01'],
        [item.inventoryItemUrl, 'quantityOnHand', item.quantityOnHand],
        [order.orderItemList[0].orderItemUrl, 'productId', 'MUG-BLUE'],
      ] as const) {
        const r = await t.api.get(url);
        expect(r.status, url).toBe(200);
        expect(r.body[key]).toEqual(value);
      }
    });

    it('answers 404 for an unknown id of every collection', async () => {
      for (const c of ['order', 'shipment', 'inventoryvariance', 'product', 'facility', 'inventoryitem', 'productassoc']) {
        const r = await t.api.get(`${c}/NO-SUCH-ID`);
        expect(r.status, c).toBe(404);
        expect(r.body.msg).toEqual(expect.any(String));
      }
    });
  });
});
