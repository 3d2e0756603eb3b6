import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { orderKind } from '../../../jobs/orders/order-kind.js';
import { orderRecordSchema } from '../../../jobs/orders/order-record.js';
import { shopifyOrders } from '../../../jobs/orders/transforms/shopify-orders.js';
import { transformPayload, type Transform } from '../../../src/feed/transform.js';

type Payload = Record<string, any>;

/** A fresh copy of a fixture: a webhook body in the shape of Shopify's REST Admin API (Order, Refund). */
const fixture = (name: string): Payload =>
  JSON.parse(readFileSync(new URL(`../../fixtures/shopify/${name}.json`, import.meta.url), 'utf8')) as Payload;

/** The transform's record, which must pass the orders stream's schema as it is. */
function snapshot(payload: unknown): unknown {
  const record = shopifyOrders(payload);
  const checked = orderRecordSchema.safeParse(record);
  expect(checked.success, JSON.stringify(checked.error?.issues)).toBe(true);
  return record;
}

const unshipped = 'shopify:default / shipping';
const first = 'shopify:48752903 / shipping';
const second = 'shopify:61430117 / shipping';
const lamp = (quantity: number, location: string) => ({ productId: 'LAMP-0007', quantity, unitPrice: 19.9, location });
const mug = (quantity: number, location: string) => ({ productId: 'MUG-BLUE', quantity, unitPrice: 12.5, location });

describe('the shopify-orders transform', () => {
  describe('on orders/create', () => {
    it('makes an open snapshot keyed by the order id, its lines not shipped yet at shopify:default', () => {
      expect(snapshot(fixture('orders-create'))).toEqual({
        orderId: '5981234567002',
        orderDate: '2026-11-20T09:15:02',
        status: 'open',
        updatedAt: '2026-11-20T09:15:04',
        origin: 'shopify:default',
        lines: [mug(3, unshipped), { productId: 'SKU-0003', quantity: 1, unitPrice: 4, location: unshipped }],
        fulfillments: [],
        returns: [],
      });
    });

    it('puts unshipped units at the order location_id when it has one (a point-of-sale order)', () => {
      const payload = fixture('orders-create');
      payload.location_id = 48752903;
      expect(snapshot(payload)).toMatchObject({ origin: 'shopify:48752903', lines: [{ location: first }, { location: first }] });
    });
  });

  describe('on orders/updated after an edit', () => {
    it('takes each line item current quantity: one lowered, one removed (dropped), one added', () => {
      expect(snapshot(fixture('orders-updated-edited'))).toEqual({
        orderId: '5981234567002',
        orderDate: '2026-11-20T09:15:02',
        status: 'open',
        updatedAt: '2026-11-20T11:02:40',
        origin: 'shopify:default',
        lines: [mug(2, unshipped), lamp(2, unshipped)],
        fulfillments: [],
        returns: [],
      });
    });
  });

  describe('on orders/updated with a part shipped from a second location', () => {
    it('makes one fulfillment per successful Shopify fulfillment, named by its name, at its location', () => {
      expect(snapshot(fixture('orders-updated-partial'))).toEqual({
        orderId: '5981234567002',
        orderDate: '2026-11-20T09:15:02',
        status: 'open',
        updatedAt: '2026-11-21T15:30:12',
        origin: 'shopify:default',
        lines: [mug(2, first), lamp(1, second), lamp(1, unshipped)],
        fulfillments: [
          { fulfillmentId: '1002.1', lines: [{ productId: 'MUG-BLUE', quantity: 2, location: first }] },
          { fulfillmentId: '1002.2', lines: [{ productId: 'LAMP-0007', quantity: 1, location: second }] },
        ],
        returns: [],
      });
    });

    it('leaves out a fulfillment that is not successful; a pending one keeps its units to ship', () => {
      const payload = fixture('orders-updated-partial');
      payload.fulfillments[1].status = 'cancelled';
      payload.line_items[2].fulfillable_quantity = 2;
      expect(snapshot(payload)).toMatchObject({ lines: [mug(2, first), lamp(2, unshipped)], fulfillments: [{ fulfillmentId: '1002.1' }] });
      payload.fulfillments[1].status = 'pending';
      payload.line_items[2].fulfillable_quantity = 1;
      expect(snapshot(payload)).toMatchObject({ lines: [mug(2, first), lamp(2, unshipped)] });
    });

    it('is fulfilled once every unit shipped, and falls back to the fulfillment id without a name', () => {
      const payload = fixture('orders-updated-partial');
      payload.line_items[2].fulfillable_quantity = 0;
      payload.fulfillments[1].line_items[0].quantity = 2;
      delete payload.fulfillments[1].name;
      expect(snapshot(payload)).toMatchObject({
        status: 'fulfilled',
        lines: [mug(2, first), lamp(2, second)],
        fulfillments: [{ fulfillmentId: '1002.1' }, { fulfillmentId: '5120980012' }],
      });
    });
  });

  describe('on orders/cancelled', () => {
    it('makes a cancelled snapshot; units restocked by the cancel (restock_type cancel) are no return', () => {
      expect(snapshot(fixture('orders-cancelled'))).toEqual({
        orderId: '5981234567003',
        orderDate: '2026-11-20T09:15:02',
        status: 'cancelled',
        updatedAt: '2026-11-20T12:40:03',
        origin: 'shopify:default',
        // Nothing shipped and nothing left: the lines as placed.
        lines: [{ productId: 'MUG-RED', quantity: 2, unitPrice: 12.5, location: unshipped }],
        fulfillments: [],
        returns: [],
      });
    });
  });

  describe('on refunds/create', () => {
    const returns = [
      {
        returnId: '929361470',
        restock: true,
        returnedAt: '2026-11-24T10:12:45',
        lines: [{ productId: 'MUG-BLUE', quantity: 1, location: first }],
      },
      {
        returnId: '929361470-no-restock',
        restock: false,
        returnedAt: '2026-11-24T10:12:45',
        lines: [{ productId: 'LAMP-0007', quantity: 1, location: unshipped }],
      },
    ];

    it('makes a return notice of the order: a return that restocks at its location, and one kept by the customer', () => {
      expect(snapshot(fixture('refunds-create'))).toEqual({ orderId: '5981234567002', updatedAt: '2026-11-24T10:12:45', returns });
    });

    it('tells the same returns in the order snapshot that follows, which keeps the units shipped as its lines', () => {
      const payload = fixture('orders-updated-partial');
      payload.line_items[0].current_quantity = 1; // Shopify takes refunded units off the current quantity
      payload.line_items[2] = { ...payload.line_items[2], current_quantity: 1, fulfillable_quantity: 0 };
      payload.fulfillments[1].line_items[0].quantity = 2;
      payload.refunds = [fixture('refunds-create')];
      payload.updated_at = '2026-11-24T10:12:47-05:00';
      expect(snapshot(payload)).toMatchObject({ status: 'fulfilled', lines: [mug(2, first), lamp(2, second)], returns });
    });

    it('makes nothing of a refund that returns no unit (money only, or a cancel)', async () => {
      const payload = fixture('refunds-create');
      payload.refund_line_items = [];
      expect(shopifyOrders(payload)).toBeNull();
      const builtIn: Transform = { stream: 'orders', name: 'shopify-orders', fn: orderKind.record.transforms!['shopify-orders']! };
      expect(await transformPayload(builtIn, payload, 'wh-1')).toEqual([]);
    });
  });

  describe('on the orders/fulfilled body the older transform reads', () => {
    it('makes a fulfilled snapshot with its fulfillment', () => {
      expect(snapshot(fixture('orders-fulfilled'))).toMatchObject({
        orderId: '5981234567001',
        status: 'fulfilled',
        lines: [
          { productId: 'MUG-BLUE', quantity: 2, location: 'shopify:48752903 / shipping' },
          { productId: 'SKU-0003', quantity: 1, location: 'shopify:48752903 / shipping' },
        ],
        fulfillments: [{ fulfillmentId: '1001.1' }],
      });
    });
  });

  describe('on a payload it cannot turn into a record', () => {
    it('names what stops it', () => {
      expect(() => shopifyOrders({ id: 1 })).toThrow(/^not a Shopify order: line_items: /);
      expect(() => shopifyOrders({ id: 7, order_id: 1, refund_line_items: 'x' })).toThrow(/^not a Shopify refund: refund_line_items: /);
      const refund = fixture('refunds-create');
      refund.refund_line_items[0].location_id = null;
      expect(() => shopifyOrders(refund)).toThrow(
        'refund.refund_line_items[0] (line item 14501240001) is a return without location_id: where its units go back is unknown',
      );
      const order = fixture('orders-updated-partial');
      order.line_items[2].sku = ' ';
      order.fulfillments[1].line_items[0].sku = null;
      expect(() => shopifyOrders(order)).toThrow('fulfillments[1].line_items[0] (id 14501240003) has no sku');
      const removed = fixture('orders-create');
      for (const item of removed.line_items) item.current_quantity = item.fulfillable_quantity = 0;
      expect(() => shopifyOrders(removed)).toThrow('order 5981234567002 has no line left');
    });
  });
});
