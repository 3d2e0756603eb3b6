import { numberOf, textOf } from '../../src/client/answers/cells.js';
import type { ServiceView } from '../../src/ops/reconcile-service.js';

/** An order as the service's order collection lists it. */
export interface OrderRow {
  orderId?: string;
  orderUrl?: string;
  statusId?: string;
  originFacilityUrl?: string;
  orderItemListTotal?: number;
}

/** A shipment as the service's shipment collection lists it. */
export interface ShipmentRow {
  shipmentId?: string;
  shipmentIdUser?: string;
  shipmentUrl?: string;
  primaryOrderUrl?: string;
  statusId?: string;
}

/** The order collection, read once per reconcile run; ids as text, absent cells left out. */
export function serviceOrders(view: ServiceView): Promise<OrderRow[]> {
  return view.read('order', async (client, opts) =>
    (await client.listCollection('order', opts)).map((r) => ({
      orderId: textOf(r.orderId),
      orderUrl: textOf(r.orderUrl),
      statusId: textOf(r.statusId),
      originFacilityUrl: textOf(r.originFacilityUrl),
      orderItemListTotal: numberOf(r.orderItemListTotal),
    })),
  );
}

/** The shipment collection, read once per reconcile run. */
export function serviceShipments(view: ServiceView): Promise<ShipmentRow[]> {
  return view.read('shipment', async (client, opts) =>
    (await client.listCollection('shipment', opts)).map((r) => ({
      shipmentId: textOf(r.shipmentId),
      shipmentIdUser: textOf(r.shipmentIdUser),
      shipmentUrl: textOf(r.shipmentUrl),
      primaryOrderUrl: textOf(r.primaryOrderUrl),
      statusId: textOf(r.statusId),
    })),
  );
}
