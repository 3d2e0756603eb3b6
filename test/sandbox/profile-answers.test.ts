import { describe, expect, it } from 'vitest';
import { decodeRows, demo, orderBody, orderWithShipment, useSandbox, varianceBody } from './helpers.js';

/** docs/service.md "Null and absent fields": the observed profile answers that way, spec does not. */
const NOW = Date.UTC(2026, 10, 21, 12, 0, 0, 250);
const ORDER_LISTS = ['orderAdjustmentList', 'orderRoleList', 'contentList', 'userFieldDataList', 'shipmentUrlList', 'invoiceUrlList'];
const SHIPMENT_LISTS = ['userFieldDataList', 'contentList', 'transferList'];

describe('answers under the observed profile', () => {
  const t = useSandbox({ profile: 'observed', clock: () => NOW });

  describe('action URLs appear only while the action is valid', () => {
    it('an open order has complete, lock and cancel, and a null edit', async () => {
      const o = await t.api.ok('order', orderBody('V-1'));
      expect(o).toMatchObject({
        actionUrlComplete: `${o.orderUrl}/complete`,
        actionUrlLock: `${o.orderUrl}/lock`,
        actionUrlCancel: `${o.orderUrl}/cancel`,
        actionUrlEdit: null,
      });
      const locked = await t.api.ok(o.actionUrlLock);
      expect(locked).toMatchObject({
        actionUrlLock: null,
        actionUrlComplete: `${o.orderUrl}/complete`,
        actionUrlCancel: `${o.orderUrl}/cancel`,
      });
    });

    it('a completed order answers complete, lock, cancel and the reservations null', async () => {
      const o = await t.api.ok('order', orderBody('V-2'));
      await t.api.ok(o.actionUrlComplete);
      const read = (await t.api.get(o.orderUrl)).body;
      expect(read).toMatchObject({
        statusId: 'ORDER_COMPLETED',
        actionUrlComplete: null,
        actionUrlLock: null,
        actionUrlCancel: null,
        reserveAllUrl: null,
      });
      expect(read.orderItemList.map((i: { reserveUrl: unknown }) => i.reserveUrl)).toEqual([null, null]);
      expect((await t.api.get(o.orderItemList[0].orderItemUrl)).body.reserveUrl).toBeNull();
    });

    it('a shipped shipment answers ship, pack, unpack and cancel null', async () => {
      const { shipment: s } = await orderWithShipment(t.api, 'V-3');
      expect(s).toMatchObject({
        actionUrlShip: `${s.shipmentUrl}/ship`,
        actionUrlPack: `${s.shipmentUrl}/pack`,
        actionUrlUnpack: null,
        actionUrlCancel: `${s.shipmentUrl}/cancel`,
      });
      const shipped = await t.api.ok(s.actionUrlShip);
      expect(shipped).toMatchObject({
        statusId: 'SHIPMENT_SHIPPED',
        actionUrlShip: null,
        actionUrlPack: null,
        actionUrlUnpack: null,
        actionUrlCancel: null,
      });
      expect((await t.api.get(s.shipmentUrl)).body.actionUrlShip).toBeNull();
      // The old URL still answers the shipment as it is, as today.
      expect((await t.api.ok(s.actionUrlShip)).statusId).toBe('SHIPMENT_SHIPPED');
    });

    it('a committed variance answers cancel null', async () => {
      const v = await t.api.ok('inventoryvariance', varianceBody());
      expect(v.actionUrlCancel).toBeNull();
      const open = await t.api.ok('inventoryvariance', varianceBody({ statusId: 'PHSCL_INV_CREATED' }));
      expect(open.actionUrlCancel).toBe(`${open.physicalInventoryUrl}/cancel`);
    });
  });

  it('answers empty side lists null, and lists with entries as lists', async () => {
    const o = await t.api.ok('order', orderBody('V-4', { contentList: [{ text: 'gift wrap' }] }));
    for (const f of ORDER_LISTS.filter((f) => f !== 'contentList')) expect(o[f], f).toBeNull();
    expect(o.contentList).toEqual([{ text: 'gift wrap' }]);
    const { shipment: s } = await orderWithShipment(t.api, 'V-5');
    for (const f of SHIPMENT_LISTS) expect(s[f], f).toBeNull();
    expect((await t.api.get(demo.sku1)).body.productAssocList).toBeNull();
    expect((await t.api.ok(demo.sku1, { productId: 'SKU-0001', productUrl: demo.sku1 })).productAssocList).toBeNull();
    expect((await t.api.get(demo.giftSet)).body.productAssocList).toHaveLength(1);
    expect((await t.api.ok('inventoryvariance', varianceBody())).contentList).toBeNull();
  });

  it('answers txStamp in epoch seconds', async () => {
    const { order, shipment } = await orderWithShipment(t.api, 'V-6');
    expect(shipment.statusIdHistoryList).toEqual([
      { statusId: null, txStamp: Math.floor(NOW / 1000), userLoginUrl: '/demo/api/userlogin/api' },
    ]);
    expect((await t.api.get(order.orderHistoryListUrl)).body.txStamp).toEqual([Math.floor(NOW / 1000)]);
    expect((await t.api.ok('inventoryvariance', varianceBody())).statusIdHistoryList[0].txStamp).toBe(Math.floor(NOW / 1000));
  });

  it('answers physicalInventoryId as a number', async () => {
    const v = await t.api.ok('inventoryvariance', varianceBody());
    expect(v.physicalInventoryId).toBe(10000);
    expect((await t.api.get(v.physicalInventoryUrl)).body.physicalInventoryId).toBe(10000);
    expect((await t.api.get('inventoryvariancesummary')).body.physicalInventoryId).toEqual([10000]);
  });

  it('gives collection rows action URLs and side lists, with their nulls', async () => {
    const { order, shipment } = await orderWithShipment(t.api, 'V-7');
    await t.api.ok('order', orderBody('V-8'));
    await t.api.ok(shipment.actionUrlShip);
    const orders = (await t.api.get('order')).body;
    expect(orders.shipmentUrlList).toEqual([[shipment.shipmentUrl]]);
    expect(orders.actionUrlComplete).toEqual([`${order.orderUrl}/complete`, '/demo/api/order/V-8/complete']);
    expect(orders.actionUrlEdit).toEqual([]);
    const shipments = (await t.api.get('shipment')).body;
    expect(shipments.actionUrlShip).toEqual([]);
    expect(shipments.actionUrlTransfer).toEqual([`${shipment.shipmentUrl}/transfer`]);
    const products = decodeRows((await t.api.get('product')).body);
    expect(products.find((p) => p.productId === 'GIFT-SET')?.productAssocList).toHaveLength(1);
    expect(products.find((p) => p.productId === 'SKU-0001')).not.toHaveProperty('productAssocList');
  });
});

describe('answers under the observed profile with invalidActions: absent', () => {
  const t = useSandbox({ profile: 'observed', invalidActions: 'absent' });

  it('leaves an action that is not valid out of the answer', async () => {
    const { shipment: s } = await orderWithShipment(t.api, 'A-1');
    const shipped = await t.api.ok(s.actionUrlShip);
    for (const f of ['actionUrlShip', 'actionUrlPack', 'actionUrlUnpack', 'actionUrlCancel']) expect(shipped).not.toHaveProperty(f);
    const o = await t.api.ok('order', orderBody('A-2'));
    expect(o).not.toHaveProperty('actionUrlEdit');
    expect(await t.api.ok(o.actionUrlComplete)).not.toHaveProperty('actionUrlComplete');
  });
});

describe('answers under the spec profile', () => {
  const t = useSandbox({ profile: 'spec', clock: () => NOW });

  it('keeps every action URL, whatever the state', async () => {
    const { order, shipment: s } = await orderWithShipment(t.api, 'V-1');
    expect(await t.api.ok(s.actionUrlShip)).toMatchObject({
      actionUrlShip: `${s.shipmentUrl}/ship`,
      actionUrlCancel: `${s.shipmentUrl}/cancel`,
    });
    expect(await t.api.ok(order.actionUrlComplete)).toMatchObject({
      actionUrlComplete: `${order.orderUrl}/complete`,
      actionUrlLock: `${order.orderUrl}/lock`,
    });
  });

  it('answers empty lists [], txStamp in ms, ids as strings, and rows without nested lists', async () => {
    const { order, shipment } = await orderWithShipment(t.api, 'V-2');
    for (const f of ORDER_LISTS.filter((f) => f !== 'shipmentUrlList' && f !== 'invoiceUrlList')) expect(order[f], f).toEqual([]);
    expect(order).not.toHaveProperty('invoiceUrlList');
    for (const f of SHIPMENT_LISTS) expect(shipment[f], f).toEqual([]);
    expect(shipment.statusIdHistoryList[0].txStamp).toBe(NOW);
    expect((await t.api.get(demo.sku1)).body.productAssocList).toEqual([]);
    expect((await t.api.ok('inventoryvariance', varianceBody())).physicalInventoryId).toBe('10000');
    expect(Object.keys((await t.api.get('order')).body)).not.toContain('shipmentUrlList');
    expect(Object.keys((await t.api.get('shipment')).body)).not.toContain('actionUrlShip');
  });
});
