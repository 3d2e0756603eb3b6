import { badResponse } from '../../src/client/answers/classify.js';
import { NotFoundError } from '../../src/client/answers/errors.js';
import type { ReadOrder, ReadShipment } from '../../src/client/answers/schemas.js';
import type { CallOptions, ServiceApi } from '../../src/client/service-api.js';
import { ConflictError } from '../../src/queue/job-errors.js';
import { compareShipment, type Difference } from './order-compare.js';
import type { OrderPlan } from './order-plan.js';

const SHIPMENT_CANCELLED = 'SHIPMENT_CANCELLED';

/** A shipment as read, with the URL it was read at (the one the order lists). */
export interface ListedShipment {
  url: string;
  shipment: ReadShipment;
}

/**
 * What the order's shipment list says of the record's shipment:
 * - `none`: the order lists no shipment (of ours or anyone's);
 * - `found`: exactly one listed shipment is the record's (its shipmentIdUser and items match);
 * - `differs`: the order has a shipment, but it differs from the record (`diffs` of the closest one);
 * - `several`: more than one listed shipment matches the record.
 */
export type ShipmentSearch =
  | { kind: 'none' }
  | ({ kind: 'found' } & ListedShipment)
  | ({ kind: 'differs'; diffs: Difference[] } & ListedShipment)
  | { kind: 'several'; urls: string[] };

/**
 * The order's shipment URLs. `null` reads as none; a missing list is a BAD_RESPONSE naming the field and the
 * URL: without it the order cannot say whether its shipment exists, and guessing could ship twice.
 */
export function shipmentUrlsOf(order: ReadOrder): string[] {
  if (order.shipmentUrlList) return order.shipmentUrlList;
  throw badResponse('GET', order.orderUrl, 200, "shipmentUrlList: is missing (needed to find the order's shipment)");
}

/**
 * Finds the record's shipment among those the order lists (docs/service.md: never by a URL built from a
 * shipmentId we chose, which the service may ignore). Reads each listed shipment once: an order normally has
 * one. Those named with the record's shipmentIdUser are the candidates, or all of them when none is; a
 * candidate is the record's when compareShipment finds no difference.
 */
export async function findShipment(client: ServiceApi, order: ReadOrder, plan: OrderPlan, o?: CallOptions): Promise<ShipmentSearch> {
  const urls = shipmentUrlsOf(order);
  const listed: ListedShipment[] = [];
  for (const url of new Set(urls)) {
    try {
      listed.push({ url, shipment: await client.getShipment(url, o) });
    } catch (err) {
      // A listed shipment that is gone (deleted in the service) is not ours to ship.
      if (!(err instanceof NotFoundError)) throw err;
    }
  }
  // A cancelled shipment is gone too (reconcile counts it so): it can neither be shipped nor stand for the record's.
  const live = listed.filter((l) => l.shipment.statusId !== SHIPMENT_CANCELLED);
  listed.length = 0;
  listed.push(...live);
  const named = listed.filter((l) => l.shipment.shipmentIdUser === plan.shipmentIdUser);
  const pool = named.length ? named : listed;
  const compared = pool.map((l) => ({ ...l, diffs: compareShipment(l.shipment, plan, order.orderUrl) }));
  const matching = compared.filter((c) => c.diffs.length === 0);
  if (matching.length === 1) return { kind: 'found', url: matching[0]!.url, shipment: matching[0]!.shipment };
  if (matching.length > 1) return { kind: 'several', urls: matching.map((m) => m.url) };
  if (!compared.length) return { kind: 'none' };
  const closest = compared.reduce((a, b) => (b.diffs.length < a.diffs.length ? b : a));
  return { kind: 'differs', url: closest.url, shipment: closest.shipment, diffs: closest.diffs };
}

/** The order lists several shipments that each match the record: which one is the record's is for a person to say. */
export function severalShipments(orderId: string, orderUrl: string, urls: string[]): ConflictError {
  return new ConflictError(
    `order ${orderId}: the order ${orderUrl} lists ${urls.length} shipments that each match the record ` +
      `(${urls.join(', ')}); the record has one`,
    'Cancel the extra shipment(s) in the service (stock may have been taken for each), then retry the job.',
    { orderId, orderUrl, shipmentUrls: urls },
  );
}
