import type { CreateOrderBody, CreateShipmentBody, Order, Shipment } from '../../src/client/answers/schemas.js';

/** What an order is compared with: the order a record asks for, and its products' ids for naming them. */
export interface WantedOrder {
  order: Pick<CreateOrderBody, 'originFacilityUrl' | 'orderDate' | 'orderItemList'>;
  productIds: ReadonlyMap<string, string>;
}

/** What a shipment is compared with: the shipment a record asks for (its name and lines). */
export interface WantedShipment {
  shipmentIdUser: string;
  shipment: Pick<CreateShipmentBody, 'shipmentItemList'>;
  productIds: ReadonlyMap<string, string>;
}

/** One field where the service and the record disagree. */
export interface Difference {
  field: string;
  service: string;
  record: string;
}

/** A number as compared; `?` when the service left it out (so it differs from any record value). */
const num = (n: number | undefined) => (n === undefined ? '?' : String(Math.round(n * 1e6) / 1e6));

/** Groups "what" strings by key, sorted, so line order and splitting do not matter. */
function groupBy<T>(items: T[], key: (t: T) => string, what: (t: T) => string): Map<string, string> {
  const acc = new Map<string, string[]>();
  for (const t of items) {
    const k = key(t);
    const list = acc.get(k) ?? [];
    list.push(what(t));
    acc.set(k, list);
  }
  return new Map([...acc].map(([k, v]) => [k, v.sort().join(' + ')]));
}

function compareGroups(field: (key: string) => string, service: Map<string, string>, record: Map<string, string>): Difference[] {
  const out: Difference[] = [];
  for (const key of new Set([...service.keys(), ...record.keys()])) {
    const s = service.get(key) ?? 'none';
    const r = record.get(key) ?? 'none';
    if (s !== r) out.push({ field: field(key), service: s, record: r });
  }
  return out;
}

function productName(plan: { productIds: ReadonlyMap<string, string> }, productUrl: string | undefined, productId?: string): string {
  return (productUrl === undefined ? undefined : plan.productIds.get(productUrl)) ?? productId ?? productUrl ?? '?';
}

/** A naive date-time to the second (the service answers `YYYY-MM-DDTHH:MM:SS`; a record may add `.mmm`). */
const toSecond = (dateTime: string) => dateTime.slice(0, 19);

/**
 * Differences between an order in the service and the plan: origin, order date (when the record gives one; else
 * the service chose it) and items (product, quantity, unit price).
 */
export function compareOrder(order: Order, plan: WantedOrder): Difference[] {
  const out: Difference[] = [];
  if (order.originFacilityUrl !== undefined && order.originFacilityUrl !== plan.order.originFacilityUrl) {
    out.push({ field: 'origin', service: order.originFacilityUrl, record: plan.order.originFacilityUrl });
  }
  const recordDate = plan.order.orderDate;
  if (recordDate !== undefined && order.orderDate !== undefined && toSecond(order.orderDate) !== toSecond(recordDate)) {
    out.push({ field: 'orderDate', service: order.orderDate, record: recordDate });
  }
  const what = (i: { quantity?: number; unitPrice?: number }) => `${num(i.quantity)} x ${num(i.unitPrice)}`;
  const service = groupBy(order.orderItemList, (i) => productName(plan, i.productUrl, i.productId), what);
  const record = groupBy(plan.order.orderItemList, (i) => productName(plan, i.productUrl, i.productId), what);
  out.push(...compareGroups((p) => `lines[${p}] quantity x unitPrice`, service, record));
  return out;
}

/** Differences between a shipment in the service and the plan: its order, its shipmentIdUser and items (location, product, quantity). */
export function compareShipment(shipment: Shipment, plan: WantedShipment, orderUrl: string): Difference[] {
  const out: Difference[] = [];
  if (shipment.primaryOrderUrl !== undefined && shipment.primaryOrderUrl !== orderUrl) {
    out.push({ field: 'shipment primaryOrderUrl', service: shipment.primaryOrderUrl, record: orderUrl });
  }
  if (shipment.shipmentIdUser != null && shipment.shipmentIdUser !== plan.shipmentIdUser) {
    out.push({ field: 'shipmentIdUser', service: shipment.shipmentIdUser, record: plan.shipmentIdUser });
  }
  const key = (i: { productUrl?: string; productId?: string; facilityUrl?: string }) =>
    `${productName(plan, i.productUrl, i.productId)} at ${i.facilityUrl ?? '?'}`;
  const what = (i: { quantity?: number }) => num(i.quantity);
  const service = groupBy(shipment.shipmentItemList, key, what);
  const record = groupBy(plan.shipment.shipmentItemList, key, what);
  out.push(...compareGroups((k) => `shipment lines[${k}] quantity`, service, record));
  return out;
}

/** "field: service has X, record has Y; ..." for error messages. */
export function describeDifferences(diffs: Difference[]): string {
  return diffs.map((d) => `${d.field}: service has ${d.service}, record has ${d.record}`).join('; ');
}
