import type { SandboxState } from '../../src/sandbox/sandbox-entities.js';

/** A valid order of the demo account. */
export function orderRecord(
  orderId: string,
  lines?: Array<Record<string, unknown>>,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    orderId,
    origin: 'Main Warehouse',
    lines: lines ?? [
      { productId: 'MUG-BLUE', quantity: 2, unitPrice: 12.5, location: 'Main Warehouse / A-01' },
      { productId: 'SKU-0003', quantity: 1, unitPrice: 4, location: 'A-02' },
    ],
    ...extra,
  };
}

/** A snapshot of an order (docs/orders.md "The order's life"): open, with two lines, unless `o` says otherwise. */
export function orderSnapshot(orderId: string, o: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    orderId,
    status: 'open',
    origin: 'Main Warehouse',
    lines: [
      { productId: 'MUG-BLUE', quantity: 3, unitPrice: 12.5, location: 'Main Warehouse / A-01' },
      { productId: 'SKU-0003', quantity: 1, unitPrice: 4, location: 'A-02' },
    ],
    ...o,
  };
}

/** What the sandbox holds for one orderId: its orders and the shipments attached to them. */
export function orderState(state: SandboxState, orderId: string) {
  const orders = state.orders.filter((o) => o.orderId === orderId);
  const urls = new Set(orders.map((o) => o.orderUrl));
  const shipments = state.shipments.filter((s) => urls.has(s.primaryOrderUrl));
  return { orders, shipments };
}

/** Whether each order exists once, completed, with one shipment, shipped: synced exactly once. */
export function syncedOnce(state: SandboxState, ids: string[]): boolean {
  return ids.every((id) => {
    const { orders, shipments } = orderState(state, id);
    return (
      orders.length === 1 &&
      orders[0]!.statusId === 'ORDER_COMPLETED' &&
      shipments.length === 1 &&
      shipments[0]!.statusId === 'SHIPMENT_SHIPPED'
    );
  });
}
