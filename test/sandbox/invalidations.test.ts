import { describe, expect, it } from 'vitest';
import { demo, orderBody, orderWithShipment, useSandbox, varianceBody } from './helpers.js';

/** docs/service.md "Requests": every create and modify answer lists what it invalidated. */
const t = useSandbox();

describe('events: invalidations (spec section 6)', () => {
  it('order create: the order collection, the order summary collection and the order history URL', async () => {
    const o = await t.api.ok('order', orderBody('I-1'));
    expect(o.invalidations).toEqual(expect.arrayContaining(['/demo/api/order', '/demo/api/ordersummary', '/demo/api/order/I-1/history/']));
    expect((await t.api.get('ordersummary')).body.orderId).toEqual(['I-1']);
  });

  it('shipment create: the shipment collection, the order collection and the order URL', async () => {
    const { order, shipment } = await orderWithShipment(t.api, 'I-2');
    expect(shipment.invalidations).toEqual(expect.arrayContaining(['/demo/api/shipment', '/demo/api/order', order.orderUrl]));
  });

  it('variance create: the variance summary collection and the inventory item collection', async () => {
    const v = await t.api.ok('inventoryvariance', varianceBody());
    expect(v.invalidations).toEqual(expect.arrayContaining(['/demo/api/inventoryvariancesummary', '/demo/api/inventoryitem']));
    expect((await t.api.get('inventoryvariancesummary')).body.physicalInventoryId).toEqual([v.physicalInventoryId]);
  });

  it('modifications and actions list the entity, its collection, and the stock when shipping', async () => {
    const { order, shipment } = await orderWithShipment(t.api, 'I-3');
    const shipped = await t.api.ok(shipment.shipmentUrl, { statusId: 'SHIPMENT_SHIPPED' });
    expect(shipped.invalidations).toEqual(
      expect.arrayContaining([shipment.shipmentUrl, '/demo/api/shipment', order.orderUrl, '/demo/api/inventoryitem']),
    );
    const done = await t.api.ok(order.actionUrlComplete);
    expect(done.invalidations).toEqual(expect.arrayContaining([order.orderUrl, '/demo/api/order']));
    const p = await t.api.ok(demo.sku1, { productId: 'SKU-0001', productUrl: demo.sku1, productAssocList: [] });
    expect(p.invalidations).toEqual(expect.arrayContaining([demo.sku1, '/demo/api/product']));
  });

  it('leaves invalidations out of plain GETs', async () => {
    const o = await t.api.ok('order', orderBody('I-4'));
    expect((await t.api.get(o.orderUrl)).body.invalidations).toBeUndefined();
  });
});
