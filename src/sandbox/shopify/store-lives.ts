import type { ShopifyStore } from './shopify-store.js';
import type { StoreOrderState } from './store-state.js';

const DAY = 86_400_000;

/** The kinds of life an order lives in the store. */
export type LifeKind = 'full' | 'open' | 'cancel' | 'refunded';

/**
 * 200 (or `count`) orders living their lives in the store, each on a day of its own from `from` (by default 2025-01-01;
 * so that each return's variance has its own day), its changes 10 s apart: placed; edited; fulfilled in two parts from
 * the two locations; refunded with restock (return) and without (no_restock); or left open with a unit cancelled; or
 * cancelled. `first` is the first life's place in that round of kinds (0: a full life).
 */
export async function liveLives(
  store: Pick<ShopifyStore, 'admin'>,
  count: number,
  o: { pauseEvery?: number; pauseMs?: number; from?: number; first?: number } = {},
) {
  const lives = new Map<number, LifeKind>();
  const kinds: LifeKind[] = ['full', 'open', 'cancel', 'refunded'];
  const s = store.admin.orders;
  const [A, B] = [48752903, 61430117];
  for (let i = 0; i < count; i++) {
    const at = (o.from ?? Date.UTC(2025, 0, 1, 12)) + i * DAY;
    const step = (n: number) => at + n * 10_000;
    const kind = kinds[(i + (o.first ?? 0)) % kinds.length]!;
    const order = s.place({
      lines: [
        { sku: 'MUG-BLUE', quantity: 3, price: '12.50' },
        { sku: 'SKU-0003', quantity: 2, price: '4.00' },
      ],
      at,
    });
    const [mug, sku] = order.lineItems as [StoreOrderState['lineItems'][0], StoreOrderState['lineItems'][0]];
    lives.set(order.id, kind);
    if (kind === 'cancel') s.cancel(order.id, step(1));
    else {
      s.edit(order.id, { remove: [{ lineItemId: sku.id, quantity: 1 }] }, step(1));
      s.fulfill(order.id, A, [{ lineItemId: mug.id, quantity: 2 }], step(2));
      if (kind === 'open') s.refund(order.id, [{ lineItemId: mug.id, quantity: 1, restockType: 'CANCEL', locationId: A }], step(3));
      else {
        s.fulfill(
          order.id,
          B,
          [
            { lineItemId: mug.id, quantity: 1 },
            { lineItemId: sku.id, quantity: 1 },
          ],
          step(3),
        );
        // Back to the second location: the no_restock refund's line is named at the first (shopify:default's place).
        s.refund(order.id, [{ lineItemId: mug.id, quantity: 1, restockType: 'RETURN', locationId: kind === 'refunded' ? B : A }], step(4));
        if (kind === 'refunded')
          s.refund(order.id, [{ lineItemId: sku.id, quantity: 1, restockType: 'NO_RESTOCK', locationId: null }], step(5));
      }
    }
    if (o.pauseEvery && i % o.pauseEvery === o.pauseEvery - 1) await new Promise((r) => setTimeout(r, o.pauseMs ?? 50));
  }
  return lives;
}
