import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { orderRecordSchema } from '../../../jobs/orders/order-record.js';
import { orderKind } from '../../../jobs/orders/order-kind.js';
import { shopifyOrdersFulfilled } from '../../../jobs/orders/transforms/shopify-orders-fulfilled.js';
import { transformPayload, type Transform } from '../../../src/feed/transform.js';

type Payload = Record<string, any>;

/** A fresh copy of the fixture: an `orders/fulfilled` body in the shape of Shopify's REST Admin API Order resource. */
const fixture = (): Payload =>
  JSON.parse(readFileSync(new URL('../../fixtures/shopify/orders-fulfilled.json', import.meta.url), 'utf8')) as Payload;

const builtIn: Transform = {
  stream: 'orders',
  name: 'shopify-orders-fulfilled',
  fn: orderKind.record.transforms!['shopify-orders-fulfilled']!,
};

describe('the shopify-orders-fulfilled transform', () => {
  describe('on a fulfilled order as Shopify sends it', () => {
    it('makes one order of our shape: orderId from name, a naive orderDate, a line per fulfilled line item', () => {
      const record = shopifyOrdersFulfilled(fixture());
      expect(record).toEqual({
        orderId: '1001',
        orderDate: '2026-11-20T09:15:02',
        origin: 'shopify:48752903',
        lines: [
          { productId: 'MUG-BLUE', quantity: 2, unitPrice: 12.5, location: 'shopify:48752903 / shipping' },
          { productId: 'SKU-0003', quantity: 1, unitPrice: 4, location: 'shopify:48752903 / shipping' },
        ],
      });
      expect(orderRecordSchema.safeParse(record).success).toBe(true);
    });

    it('is declared by the orders kind under its name, and its records carry the webhook id and payload', async () => {
      const payload = fixture();
      const entries = await transformPayload(builtIn, payload, 'wh-7f3a');
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({ record: { orderId: '1001' }, upstreamId: 'wh-7f3a' });
      expect(JSON.parse((entries[0] as { upstream: string }).upstream)).toEqual(payload);
    });

    it('takes order_number when the order has no name, and leaves orderDate out without created_at', () => {
      const payload = fixture();
      delete payload.name;
      delete payload.created_at;
      const record = shopifyOrdersFulfilled(payload);
      expect(record.orderId).toBe('1001');
      expect(record).not.toHaveProperty('orderDate');
    });

    it('leaves out a cancelled fulfillment, and takes the quantity each fulfillment shipped', () => {
      const payload = fixture();
      const [first] = payload.fulfillments;
      payload.fulfillments = [
        { ...first, id: 1, status: 'cancelled', location_id: 99, line_items: first.line_items },
        { ...first, id: 2, line_items: [{ ...first.line_items[0], quantity: 1 }] },
        { ...first, id: 3, location_id: 48752999, line_items: [{ ...first.line_items[0], quantity: 1 }, first.line_items[1]] },
      ];
      const record = shopifyOrdersFulfilled(payload);
      expect(record.origin).toBe('shopify:48752903');
      expect(record.lines).toEqual([
        { productId: 'MUG-BLUE', quantity: 1, unitPrice: 12.5, location: 'shopify:48752903 / shipping' },
        { productId: 'MUG-BLUE', quantity: 1, unitPrice: 12.5, location: 'shopify:48752999 / shipping' },
        { productId: 'SKU-0003', quantity: 1, unitPrice: 4, location: 'shopify:48752999 / shipping' },
      ]);
    });
  });

  describe('on a payload it cannot turn into an order', () => {
    it('refuses a line item without a SKU, naming the line item, and makes no record of the order', async () => {
      const payload = fixture();
      payload.fulfillments[0].line_items[1].sku = null;
      payload.line_items[1].sku = '';
      const entries = await transformPayload(builtIn, payload, 'wh-8c21');
      expect(entries).toEqual([
        {
          problem:
            'transform shopify-orders-fulfilled failed: fulfillments[0].line_items[1] (id 14501230002, "Bright lamp 0003") has no sku: its product cannot be named',
          upstreamId: 'wh-8c21',
          upstream: JSON.stringify(payload),
        },
      ]);
    });

    it('refuses a price that is not a number, naming the line item', () => {
      const payload = fixture();
      payload.fulfillments[0].line_items[0].price = 'twelve';
      expect(() => shopifyOrdersFulfilled(payload)).toThrow(
        'fulfillments[0].line_items[0] (id 14501230001, "Blue mug"): price "twelve" is not a number',
      );
    });

    it('refuses a body that is not an order, and one with no successful fulfillment', () => {
      expect(() => shopifyOrdersFulfilled({ id: 1 })).toThrow(/^not a Shopify order: line_items: /);
      const payload = fixture();
      payload.fulfillments[0].status = 'pending';
      expect(() => shopifyOrdersFulfilled(payload)).toThrow('order 1001 has no successful fulfillment with line items');
      payload.fulfillments[0].status = 'success';
      payload.fulfillments[0].location_id = null;
      expect(() => shopifyOrdersFulfilled(payload)).toThrow('fulfillments[0] has no location_id');
    });
  });
});
