import { describe, expect, it } from 'vitest';
import { shopifyOrders } from '../../../jobs/orders/transforms/shopify-orders.js';

/** A refund of one unit of a line item that shipped, with the given restock type (Shopify's RefundLineItemRestockType). */
const refund = (restockType: string) => ({
  id: 77,
  order_id: 5501,
  created_at: '2026-11-23T10:00:00-05:00',
  refund_line_items: [
    { line_item_id: 11, quantity: 1, restock_type: restockType, location_id: 48752903, line_item: { id: 11, sku: 'MUG-BLUE' } },
  ],
});

describe('Shopify refund lines by restock type', () => {
  it.each([
    ['return', [{ returnId: '77', restock: true }]],
    ['legacy_restock', [{ returnId: '77', restock: true }]],
    ['no_restock', [{ returnId: '77-no-restock', restock: false }]],
  ])('%s makes the return Shopify means', (type, returns) => {
    const notice = shopifyOrders(refund(type)) as { returns: Array<{ returnId: string; restock: boolean; lines: unknown[] }> };
    expect(notice.returns.map(({ returnId, restock }) => ({ returnId, restock }))).toEqual(returns);
    expect(notice.returns[0]!.lines).toEqual([{ productId: 'MUG-BLUE', quantity: 1, location: 'shopify:48752903 / shipping' }]);
  });

  it('cancel returns nothing: the units never shipped', () => {
    expect(shopifyOrders(refund('cancel'))).toBeNull();
  });
});
