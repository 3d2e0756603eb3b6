import { round, type Inventory } from './inventory.js';
import { ORDER_LOCKED } from './order-status.js';
import type { OrderEntity, ProductEntity, ShipmentEntity } from './sandbox-entities.js';
import { SHIPMENT_SHIPPED } from './shipment-status.js';

/** What of the store reservations read and write (the store itself calls syncReservations when it loads). */
export interface ReservationStore {
  readonly inventory: Inventory;
  readonly shipments: ReadonlyMap<string, ShipmentEntity>;
  idOf(url: string, collection: string): string | undefined;
  productByUrl(url: string): ProductEntity | undefined;
  touch(): void;
}

/**
 * Brings an order's reservations in line with it: while it is ORDER_LOCKED ("committed"), each product's units
 * not yet shipped (its items' quantity less what its SHIPMENT_SHIPPED shipments carried) are `quantityReserved`
 * on a row of (origin facility, product, order); in any other status it reserves nothing. Call it after a
 * status change of the order or a shipment of it; answers whether the inventory item collection changed.
 */
export function syncReservations(store: ReservationStore, order: OrderEntity): boolean {
  const units = new Map<string, number>();
  if (order.statusId === ORDER_LOCKED) {
    for (const i of order.orderItemList) units.set(i.productUrl, round((units.get(i.productUrl) ?? 0) + i.quantity));
    for (const url of order.shipmentUrlList) {
      const id = store.idOf(url, 'shipment');
      const s = id === undefined ? undefined : store.shipments.get(id);
      if (s?.statusId !== SHIPMENT_SHIPPED) continue;
      for (const it of s.shipmentItemList) {
        const left = units.get(it.productUrl);
        if (left !== undefined) units.set(it.productUrl, round(left - it.quantity));
      }
    }
  }
  const reserved: Array<readonly [ProductEntity, number]> = [];
  for (const [url, quantity] of units) {
    const product = store.productByUrl(url);
    if (product && quantity > 0) reserved.push([product, quantity]);
  }
  const changed = store.inventory.reserve(order.orderId, order.originFacilityUrl, reserved);
  if (changed) store.touch();
  return changed;
}
