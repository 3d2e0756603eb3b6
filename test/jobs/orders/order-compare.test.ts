import { describe, expect, it } from 'vitest';
import type { Order, Shipment } from '../../../src/client/answers/schemas.js';
import { shipmentUrlsOf } from '../../../jobs/orders/order-read.js';
import { compareOrder, compareShipment, describeDifferences } from '../../../jobs/orders/order-compare.js';
import { recordHashOf } from '../../../jobs/orders/order-plan.js';
import { shipmentIdFor } from '../../../jobs/orders/shipment-id.js';

const plan = {
  orderId: 'WEB-1',
  shipmentId: 'SHP-WEB-1',
  shipmentIdUser: 'WEB-1-1',
  recordHash: 'x',
  productIds: new Map([
    ['/demo/api/product/1', 'MUG-BLUE'],
    ['/demo/api/product/2', 'MUG-RED'],
  ]),
  order: {
    orderId: 'WEB-1',
    orderTypeId: 'SALES_ORDER',
    originFacilityUrl: '/demo/api/facility/M',
    orderItemList: [
      { productId: 'MUG-BLUE', productUrl: '/demo/api/product/1', unitPrice: 12.5, quantity: 2 },
      { productId: 'MUG-RED', productUrl: '/demo/api/product/2', unitPrice: 10, quantity: 1 },
    ],
  },
  shipment: {
    shipmentId: 'SHP-WEB-1',
    shipmentIdUser: 'WEB-1-1',
    shipmentTypeId: 'SALES_SHIPMENT',
    statusId: 'SHIPMENT_INPUT',
    shipmentItemList: [
      { facilityUrl: '/demo/api/facility/A1', productId: 'MUG-BLUE', productUrl: '/demo/api/product/1', quantity: 2 },
      { facilityUrl: '/demo/api/facility/A2', productId: 'MUG-RED', productUrl: '/demo/api/product/2', quantity: 1 },
    ],
  },
};

function order(items: Order['orderItemList'], origin = '/demo/api/facility/M'): Order {
  return {
    orderId: 'WEB-1',
    orderUrl: '/demo/api/order/WEB-1',
    statusId: 'ORDER_CREATED',
    originFacilityUrl: origin,
    orderItemList: items,
  };
}

function shipment(items: Shipment['shipmentItemList']): Shipment {
  return {
    shipmentId: 'SHP-WEB-1',
    shipmentUrl: '/demo/api/shipment/SHP-WEB-1',
    statusId: 'SHIPMENT_INPUT',
    primaryOrderUrl: '/demo/api/order/WEB-1',
    shipmentItemList: items,
  };
}

describe('order comparison', () => {
  describe('when the service has the same order with items in another order', () => {
    it('finds no difference', () => {
      const items = [...plan.order.orderItemList].reverse();
      expect(compareOrder(order(items), plan)).toEqual([]);
    });
  });

  describe('when a quantity and the origin differ', () => {
    it('names each field with the service and the record values', () => {
      const items = [{ ...plan.order.orderItemList[0]!, quantity: 3 }, plan.order.orderItemList[1]!];
      const diffs = compareOrder(order(items, '/demo/api/facility/N'), plan);
      expect(diffs).toEqual([
        { field: 'origin', service: '/demo/api/facility/N', record: '/demo/api/facility/M' },
        { field: 'lines[MUG-BLUE] quantity x unitPrice', service: '3 x 12.5', record: '2 x 12.5' },
      ]);
      expect(describeDifferences(diffs)).toContain('lines[MUG-BLUE] quantity x unitPrice: service has 3 x 12.5, record has 2 x 12.5');
    });
  });

  describe('when the order date differs', () => {
    it('names it, comparing to the second (the service answers without milliseconds)', () => {
      const dated = { ...plan, order: { ...plan.order, orderDate: '2026-11-20T14:03:11.000' } };
      expect(compareOrder({ ...order(plan.order.orderItemList), orderDate: '2026-11-20T14:03:11' }, dated)).toEqual([]);
      expect(compareOrder({ ...order(plan.order.orderItemList), orderDate: '2026-11-21T09:00:00' }, dated)).toEqual([
        { field: 'orderDate', service: '2026-11-21T09:00:00', record: '2026-11-20T14:03:11.000' },
      ]);
      // A record without a date lets the service choose it: nothing to compare.
      expect(compareOrder({ ...order(plan.order.orderItemList), orderDate: '2026-11-21T09:00:00' }, plan)).toEqual([]);
    });
  });

  describe('when the shipment has another shipmentIdUser', () => {
    it('names it; a shipment without one is not a difference', () => {
      const same = shipment(plan.shipment.shipmentItemList);
      expect(compareShipment({ ...same, shipmentIdUser: 'WEB-1-1' }, plan, '/demo/api/order/WEB-1')).toEqual([]);
      expect(compareShipment({ ...same, shipmentIdUser: undefined }, plan, '/demo/api/order/WEB-1')).toEqual([]);
      expect(compareShipment({ ...same, shipmentIdUser: 'WEB-1-A' }, plan, '/demo/api/order/WEB-1')).toEqual([
        { field: 'shipmentIdUser', service: 'WEB-1-A', record: 'WEB-1-1' },
      ]);
    });
  });

  describe('when the service lacks a product of the record', () => {
    it('reports it as none in the service', () => {
      const diffs = compareOrder(order([plan.order.orderItemList[0]!]), plan);
      expect(diffs).toEqual([{ field: 'lines[MUG-RED] quantity x unitPrice', service: 'none', record: '1 x 10' }]);
    });
  });

  describe('when a shipment line leaves from another location', () => {
    it('reports the line at both locations', () => {
      const items = [plan.shipment.shipmentItemList[0]!, { ...plan.shipment.shipmentItemList[1]!, facilityUrl: '/demo/api/facility/A3' }];
      const diffs = compareShipment(shipment(items), plan, '/demo/api/order/WEB-1');
      expect(diffs.map((d) => d.field)).toEqual([
        'shipment lines[MUG-RED at /demo/api/facility/A3] quantity',
        'shipment lines[MUG-RED at /demo/api/facility/A2] quantity',
      ]);
    });
  });

  describe('when the shipment matches', () => {
    it('finds no difference', () => {
      expect(compareShipment(shipment(plan.shipment.shipmentItemList), plan, '/demo/api/order/WEB-1')).toEqual([]);
    });
  });
});

describe('shipment id', () => {
  it('is the orderId behind SHP- when the orderId is URL-safe', () => {
    expect(shipmentIdFor('WEB-100231')).toBe('SHP-WEB-100231');
  });

  it('is a hash behind SHPX- when the orderId has other characters, and never collides with the plain form', () => {
    const id = shipmentIdFor('WEB 1/2');
    expect(id).toMatch(/^SHPX-[0-9a-f]{32}$/);
    expect(shipmentIdFor('WEB 1/3')).not.toBe(id);
    expect(shipmentIdFor('X-abc')).toBe('SHP-X-abc');
  });
});

describe("an order's shipment URLs", () => {
  const read = { ...order(plan.order.orderItemList), statusId: 'ORDER_CREATED', orderUrl: '/demo/api/order/WEB-1' };

  it('are the list the order answers, none when it answers null (read as [])', () => {
    expect(shipmentUrlsOf({ ...read, shipmentUrlList: ['/demo/api/shipment/328966'] })).toEqual(['/demo/api/shipment/328966']);
    expect(shipmentUrlsOf({ ...read, shipmentUrlList: [] })).toEqual([]);
  });

  it('are a BAD_RESPONSE naming the field and the URL when the order answers no list at all', () => {
    expect(() => shipmentUrlsOf(read)).toThrow(expect.objectContaining({ code: 'BAD_RESPONSE', outcome: 'not-applied' }));
    expect(() => shipmentUrlsOf(read)).toThrow(/^GET \/demo\/api\/order\/WEB-1 answered 200 .*: shipmentUrlList: is missing/);
  });
});

describe('when the service leaves out an item field it compares', () => {
  it('reports the item as differing (shown as ?), never as equal', () => {
    const items = [{ ...plan.order.orderItemList[0]!, unitPrice: undefined }, plan.order.orderItemList[1]!];
    expect(compareOrder(order(items), plan)).toEqual([
      { field: 'lines[MUG-BLUE] quantity x unitPrice', service: '2 x ?', record: '2 x 12.5' },
    ]);
  });
});

describe('record hash', () => {
  const record = { orderId: 'WEB-1', origin: 'Main Warehouse', lines: [{ productId: 'A', quantity: 1, unitPrice: 1, location: 'L' }] };

  it('is the same whether shipmentIdUser is given as its default or left out', () => {
    expect(recordHashOf(record)).toBe(recordHashOf({ ...record, shipmentIdUser: 'WEB-1-1' }));
  });

  it('changes when a line changes', () => {
    expect(recordHashOf(record)).not.toBe(recordHashOf({ ...record, lines: [{ ...record.lines[0]!, quantity: 2 }] }));
  });
});
