import { NotFoundError } from '../../src/client/answers/errors.js';
import type { Order, ReadOrder } from '../../src/client/answers/schemas.js';
import type { JobContext } from '../../src/queue/job-context.js';
import { shipmentUrlsOf } from './find-shipment.js';
import { itemsHashOf, type LifePlan, type Units } from './life-plan.js';
import type { KnownPart, LifeActions, LifeProgress, LifeStatus, LifeWrite } from './life-progress.js';
import { orderConflict } from './order-errors.js';
import { ConflictError } from '../../src/queue/job-errors.js';

const STATUS: Record<string, LifeStatus> = {
  ORDER_CREATED: 'created',
  ORDER_LOCKED: 'locked',
  ORDER_COMPLETED: 'completed',
  ORDER_CANCELLED: 'cancelled',
};
const SHIPMENT_SHIPPED = 'SHIPMENT_SHIPPED';
const SHIPMENT_CANCELLED = 'SHIPMENT_CANCELLED';

/** The order as the service has it: status, URLs, items and its live shipments by name. */
export interface ServiceOrder {
  status: LifeStatus;
  orderUrl: string;
  originFacilityUrl?: string;
  actions: LifeActions;
  items: string;
  parts: Map<string, KnownPart>;
}

/** An order answer's status; one this program does not know counts as editable (created). */
export function statusOf(order: Pick<Order, 'statusId'>): LifeStatus {
  return STATUS[order.statusId ?? ''] ?? 'created';
}

/** The action URLs an order answer carries (null and absent alike: not allowed now). */
export function actionsOf(order: Order): LifeActions {
  const out: LifeActions = {};
  if (order.actionUrlLock) out.lock = order.actionUrlLock;
  if (order.actionUrlEdit) out.edit = order.actionUrlEdit;
  if (order.actionUrlCancel) out.cancel = order.actionUrlCancel;
  if (order.actionUrlComplete) out.complete = order.actionUrlComplete;
  return out;
}

function unitsOf(items: ReadonlyArray<{ productUrl?: string; facilityUrl?: string; quantity?: number }>): Units {
  const out: Units = {};
  for (const i of items) {
    const k = `${i.productUrl ?? '?'}@${i.facilityUrl ?? '?'}`;
    out[k] = Math.round(((out[k] ?? 0) + (i.quantity ?? 0)) * 1e6) / 1e6;
  }
  return out;
}

/** Whether two parts carry the same units per product and location. */
export function sameUnits(a: Units, b: Units): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((k) => Math.abs((a[k] ?? 0) - (b[k] ?? 0)) < 1e-6);
}

/**
 * Reads the order (one GET) and each shipment it lists (one GET each); undefined when the service has no such order.
 * Cancelled shipments are gone; the others are named by their shipmentIdUser (their URL when they have none). Two
 * live shipments of one name are for a person to sort out: which one is the fulfillment's cannot be told.
 */
export async function readServiceOrder(ctx: JobContext, plan: LifePlan, orderPath: string): Promise<ServiceOrder | undefined> {
  let order: ReadOrder;
  try {
    order = await ctx.client.getOrder(orderPath);
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
  const parts = new Map<string, KnownPart>();
  for (const url of new Set(shipmentUrlsOf(order))) {
    let s;
    try {
      s = await ctx.client.getShipment(url);
    } catch (err) {
      if (err instanceof NotFoundError) continue;
      throw err;
    }
    if (s.statusId === SHIPMENT_CANCELLED) continue;
    const name = s.shipmentIdUser ?? url;
    if (parts.has(name)) {
      throw new ConflictError(
        `order ${plan.orderId}: the order ${order.orderUrl} lists two live shipments named ${name} (${parts.get(name)!.url}, ${url}); ` +
          'the record has one fulfillment of that name',
        'Cancel the extra shipment in the service (stock may have been taken for each), then retry the job.',
        { orderId: plan.orderId, orderUrl: order.orderUrl, shipmentUrls: [parts.get(name)!.url, url] },
      );
    }
    parts.set(name, { shipped: s.statusId === SHIPMENT_SHIPPED, url, units: unitsOf(s.shipmentItemList) });
  }
  return {
    status: statusOf(order),
    orderUrl: order.orderUrl,
    ...(order.originFacilityUrl ? { originFacilityUrl: order.originFacilityUrl } : {}),
    actions: actionsOf(order),
    items: itemsHashOf(order.orderItemList),
    parts,
  };
}

/**
 * What is known once the service has been read: its order (status, URLs, items) and live shipments replace what the
 * progress said; returns stay (they are settled by their own read). An order under the same id from another origin
 * is a conflict, not this order.
 */
export function adoptService(plan: LifePlan, p: LifeProgress, seen: ServiceOrder | undefined): LifeWrite {
  const parts = new Map<string, KnownPart | null>([...p.parts.keys()].map((k) => [k, null]));
  if (!seen) return { pending: '', status: '', parts };
  const origin = plan.order?.originFacilityUrl;
  if (origin && seen.originFacilityUrl && seen.originFacilityUrl !== origin)
    throw orderConflict(plan.orderId, 'order', [{ field: 'origin', service: seen.originFacilityUrl, record: origin }]);
  for (const [k, v] of seen.parts) parts.set(k, v);
  return { pending: '', status: seen.status, orderUrl: seen.orderUrl, actions: seen.actions, items: seen.items, parts };
}
