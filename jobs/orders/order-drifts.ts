import { NotFoundError } from '../../src/client/answers/errors.js';
import type { ServiceView } from '../../src/ops/reconcile-service.js';
import type { SyncedRecord } from '../../src/ops/reconcile-synced.js';
import type { Drift, Unchecked } from '../../src/ops/reconcile-types.js';
import { compareOrder } from './order-compare.js';
import type { OrderPlan } from './order-plan.js';
import type { OrderProgress } from './order-progress.js';
import type { OrderStatus } from './order-record.js';
import type { OrderRow, ShipmentRow } from './order-rows.js';

const SHIPMENT_SHIPPED = 'SHIPMENT_SHIPPED';
const SHIPMENT_CANCELLED = 'SHIPMENT_CANCELLED';
const ORDER_COMPLETED = 'ORDER_COMPLETED';
/** Totals are money: a difference below half a cent is rounding. */
const TOTAL_TOLERANCE = 0.005;

/** The order's status in the service each record status asks for, and the drift when it has another. */
const WANT: Record<OrderStatus, { statusId: string; drift: string }> = {
  open: { statusId: 'ORDER_LOCKED', drift: 'order-not-committed' },
  fulfilled: { statusId: ORDER_COMPLETED, drift: 'order-not-completed' },
  cancelled: { statusId: 'ORDER_CANCELLED', drift: 'order-not-cancelled' },
};

/** What reconcile compares of one synced order: its last record as planned, its progress, and the service's rows. */
export interface OrderCheck {
  synced: SyncedRecord;
  plan: OrderPlan;
  progress: OrderProgress;
  row?: OrderRow;
  /** The order's URL as recorded (its job's answer, else its progress). */
  recorded?: string;
  /** The shipments the service lists under the order (any status). */
  shipments: ShipmentRow[];
  unchecked: Unchecked[];
}

type DriftOf = Omit<Drift, 'stream' | 'key' | 'jobId' | 'target'>;
const described = (s: ShipmentRow) => `${s.shipmentUrl ?? s.shipmentId ?? '?'} (${s.statusId ?? '?'})`;

/** A plain order's one shipment: any live one under the order, shipped; none or several are drifts. */
function oneShipment(live: ShipmentRow[], cancelled: number, url: string | undefined, drift: (d: DriftOf) => void): void {
  if (live.length === 0) {
    const service = cancelled ? `${cancelled} cancelled, none live` : 'none';
    drift({ kind: 'shipment-missing', field: 'shipment', service, synced: `one shipment (${SHIPMENT_SHIPPED})`, url });
  } else if (live.length > 1) {
    drift({ kind: 'shipment-extra', field: 'shipments', service: `${live.length}: ${live.map(described).join(', ')}`, synced: '1', url });
  } else if (live[0]!.statusId !== SHIPMENT_SHIPPED) {
    const service = live[0]!.statusId ?? 'none';
    drift({ kind: 'shipment-not-shipped', field: 'shipment statusId', service, synced: SHIPMENT_SHIPPED, url: live[0]!.shipmentUrl });
  }
}

/** A snapshot's shipments: one live one per fulfillment, named by it, shipped; none under a cancelled order. */
function namedShipments(plan: OrderPlan, live: ShipmentRow[], statusId: string, drift: (d: DriftOf) => void): void {
  if (plan.status === 'cancelled') {
    for (const s of live) {
      const field = `shipment ${s.shipmentIdUser ?? s.shipmentUrl ?? '?'}`;
      // Its cancel takes the unshipped shipments with it: one left under a cancelled order is extra.
      if (s.statusId === SHIPMENT_SHIPPED)
        drift({
          kind: 'shipped-of-cancelled',
          field,
          service: SHIPMENT_SHIPPED,
          synced: 'none: the record cancels the order',
          url: s.shipmentUrl,
        });
      else if (statusId === WANT.cancelled.statusId)
        drift({ kind: 'shipment-extra', field, service: described(s), synced: 'none: the order is cancelled', url: s.shipmentUrl });
    }
    return;
  }
  const names = new Set(plan.parts.map((p) => p.id));
  for (const part of plan.parts) {
    const named = live.filter((s) => s.shipmentIdUser === part.id);
    const field = `shipment ${part.id}`;
    if (named.length === 0)
      drift({ kind: 'shipment-missing', field, service: 'none', synced: `shipment ${part.id} (${SHIPMENT_SHIPPED})` });
    else if (named.length > 1)
      drift({ kind: 'shipment-extra', field, service: `${named.length}: ${named.map(described).join(', ')}`, synced: '1' });
    else if (named[0]!.statusId !== SHIPMENT_SHIPPED) {
      const service = named[0]!.statusId ?? 'none';
      drift({ kind: 'shipment-not-shipped', field: `${field} statusId`, service, synced: SHIPMENT_SHIPPED, url: named[0]!.shipmentUrl });
    }
  }
  const others = live.filter((s) => !s.shipmentIdUser || !names.has(s.shipmentIdUser));
  if (others.length)
    drift({
      kind: 'shipment-extra',
      field: 'shipments',
      service: `${others.length} not of a fulfillment: ${others.map(described).join(', ')}`,
      synced: `one per fulfillment (${[...names].join(', ') || 'none'})`,
    });
}

function returnDrifts(c: OrderCheck, drift: (d: DriftOf) => void): void {
  const { plan, progress } = c;
  const restocked = plan.returns.filter((r) => r.restock);
  if (!restocked.length) return;
  if (!progress.exists) {
    c.unchecked.push({
      stream: 'orders',
      key: plan.orderId,
      reason: "its progress is gone from Redis: its returns' variances cannot be told",
    });
    return;
  }
  for (const ret of restocked) {
    const have = progress.returns.get(ret.id)?.urls.length ?? 0;
    const want = ret.variances.length;
    if (have < want)
      drift({
        kind: 'return-not-restocked',
        field: `return ${ret.id}`,
        service: `${have} of ${want} variance(s) recorded`,
        synced: `${want} variance(s) restocking it`,
      });
  }
}

/** The drift's target for repair: a snapshot's says it lives and the order's status (a plain order's has none, as before). */
const targetOf = (c: OrderCheck) => (c.plan.plain ? {} : { target: { life: true, statusId: c.row?.statusId ?? 'none' } });

/**
 * One order against its last record: there (unless cancelled before it was created), committed (open), completed
 * (fulfilled) or cancelled; a plain order's one shipment, a snapshot's one per fulfillment by name, shipped; each
 * restocked return's variances recorded. Its lines are compared by orderLines (they need the order's entity). Answers
 * the drifts and the shipments compared.
 */
export function orderDrifts(c: OrderCheck): { drifts: Drift[]; shipments: number } {
  const { plan } = c;
  const drifts: Drift[] = [];
  const statusId = c.row?.statusId ?? 'none';
  const drift = (d: DriftOf) => drifts.push({ stream: 'orders', key: plan.orderId, jobId: c.synced.jobId, ...targetOf(c), ...d });
  const want = WANT[plan.status ?? 'fulfilled'];
  if (!c.row) {
    if (plan.status !== 'cancelled' || c.progress.orderUrl)
      drift({
        kind: 'order-missing',
        field: 'order',
        service: 'none',
        synced: `order ${plan.orderId} (${want.statusId})`,
        url: c.recorded,
      });
    return { drifts, shipments: 0 };
  }
  const url = c.row.orderUrl ?? c.recorded;
  if (statusId !== want.statusId) drift({ kind: want.drift, field: 'statusId', service: statusId, synced: want.statusId, url });
  const all = c.shipments;
  const live = all.filter((s) => s.statusId !== SHIPMENT_CANCELLED);
  if (plan.plain) oneShipment(live, all.length - live.length, url, drift);
  else namedShipments(plan, live, statusId, drift);
  returnDrifts(c, drift);
  return { drifts, shipments: plan.status === 'cancelled' ? 0 : plan.parts.length };
}

const money = (n: number) => String(Math.round(n * 1e6) / 1e6);

/**
 * An order's origin and lines against its record's (the lines read, one GET, when the total differs or `deep`): other
 * lines are the job's to change while a snapshot's order is not completed (`order-items`), a person's otherwise
 * (`order-lines`: a completed order, or a plain record, which is never edited into the service).
 */
export async function orderLines(view: ServiceView, c: OrderCheck & { row: OrderRow; url: string }, deep?: boolean): Promise<Drift[]> {
  const { plan, url } = c;
  const base = { stream: 'orders' as const, key: plan.orderId, jobId: c.synced.jobId, url, ...targetOf(c) };
  const out: Drift[] = [];
  const origin = plan.order!.originFacilityUrl;
  if (c.row.originFacilityUrl !== undefined && c.row.originFacilityUrl !== origin)
    out.push({ ...base, kind: 'order-origin', field: 'originFacilityUrl', service: c.row.originFacilityUrl, synced: origin });
  const total = plan.order!.orderItemList.reduce((n, i) => n + i.quantity * i.unitPrice, 0);
  const serviceTotal = c.row.orderItemListTotal;
  if (!deep && serviceTotal !== undefined && Math.abs(serviceTotal - total) <= TOTAL_TOLERANCE) return out;
  let order;
  try {
    order = await view.call((client, opts) => client.getOrder(url, opts));
  } catch (err) {
    if (err instanceof NotFoundError)
      return [...out, { ...base, kind: 'order-missing', field: 'order', service: 'none (404)', synced: `order ${plan.orderId}` }];
    throw err;
  }
  const kind = plan.plain || c.row.statusId === ORDER_COMPLETED ? 'order-lines' : 'order-items';
  const lines = compareOrder(order, { order: plan.order!, productIds: plan.productIds }).filter((d) => d.field.startsWith('lines'));
  if (lines.length) return [...out, ...lines.map((d) => ({ ...base, kind, field: d.field, service: d.service, synced: d.record }))];
  // Under --deep every order is read: lines that match and a total that matches are no drift.
  if (serviceTotal === undefined || Math.abs(serviceTotal - total) <= TOTAL_TOLERANCE) return out;
  return [...out, { ...base, kind, field: 'orderItemListTotal', service: money(serviceTotal), synced: money(total) }];
}
