import type { SyncedRecord } from '../../src/ops/reconcile-synced.js';
import type { Drift, Unchecked } from '../../src/ops/reconcile-types.js';
import type { StockEffect } from '../../src/ops/stock-effect.js';
import type { LifePlan } from './life-plan.js';
import { isOlder, type LifeProgress } from './life-progress.js';
import type { OrderStatus } from './order-record.js';
import type { OrderRow, ShipmentRow } from './order-rows.js';

const SHIPMENT_SHIPPED = 'SHIPMENT_SHIPPED';
const SHIPMENT_CANCELLED = 'SHIPMENT_CANCELLED';

/** An order that lives (docs/orders.md "The order's life"): its last snapshot as planned, and its progress. */
export interface LifeOrder {
  plan: LifePlan;
  progress: LifeProgress;
}

/** The order's status in the service each snapshot status asks for, and the drift when it has another. */
export const LIFE_STATUS: Record<OrderStatus, { statusId: string; drift: string }> = {
  open: { statusId: 'ORDER_LOCKED', drift: 'order-not-committed' },
  fulfilled: { statusId: 'ORDER_COMPLETED', drift: 'order-not-completed' },
  cancelled: { statusId: 'ORDER_CANCELLED', drift: 'order-not-cancelled' },
};

const isNotice = (r: unknown) => typeof r === 'object' && r !== null && !('lines' in r);
const updatedAtOf = (r: unknown) => (r as { updatedAt?: unknown }).updatedAt;

/**
 * Of two applied records of one order, whether `a` is the last snapshot in place of `b`: a snapshot before a return
 * notice (which tells only returns), the newer updatedAt; undefined (the later job) when that cannot tell.
 */
export function newerSnapshot(a: unknown, b: unknown): boolean | undefined {
  if (isNotice(a) !== isNotice(b)) return isNotice(b);
  const [x, y] = [updatedAtOf(a), updatedAtOf(b)];
  if (typeof x !== 'string' || typeof y !== 'string' || (!isOlder(x, y) && !isOlder(y, x))) return undefined;
  return isOlder(y, x);
}

/** What reconcile compares of one order that lives. */
export interface LifeCheck {
  synced: SyncedRecord;
  life: LifeOrder;
  row?: OrderRow;
  /** The shipments the service lists under the order (any status). */
  shipments: ShipmentRow[];
  unchecked: Unchecked[];
}

type DriftOf = Omit<Drift, 'stream' | 'key' | 'jobId' | 'target'>;

const described = (s: ShipmentRow) => `${s.shipmentUrl ?? s.shipmentId ?? '?'} (${s.statusId ?? '?'})`;

function shipmentDrifts(plan: LifePlan, live: ShipmentRow[], statusId: string, drift: (d: DriftOf) => void): number {
  if (plan.status === 'cancelled') {
    for (const s of live) {
      const name = s.shipmentIdUser ?? s.shipmentUrl ?? '?';
      // Its cancel takes the unshipped shipments with it: one left under a cancelled order is extra.
      if (s.statusId === SHIPMENT_SHIPPED)
        drift({
          kind: 'shipped-of-cancelled',
          field: `shipment ${name}`,
          service: SHIPMENT_SHIPPED,
          synced: 'none: the record cancels the order',
          url: s.shipmentUrl,
        });
      else if (statusId === LIFE_STATUS.cancelled.statusId)
        drift({
          kind: 'shipment-extra',
          field: `shipment ${name}`,
          service: described(s),
          synced: 'none: the order is cancelled',
          url: s.shipmentUrl,
        });
    }
    return 0;
  }
  const names = new Set(plan.parts.map((p) => p.id));
  for (const part of plan.parts) {
    const named = live.filter((s) => s.shipmentIdUser === part.id);
    const field = `shipment ${part.id}`;
    if (named.length === 0)
      drift({ kind: 'shipment-missing', field, service: 'none', synced: `shipment ${part.id} (${SHIPMENT_SHIPPED})` });
    else if (named.length > 1)
      drift({ kind: 'shipment-extra', field, service: `${named.length}: ${named.map(described).join(', ')}`, synced: '1' });
    else if (named[0]!.statusId !== SHIPMENT_SHIPPED)
      drift({
        kind: 'shipment-not-shipped',
        field: `${field} statusId`,
        service: named[0]!.statusId ?? 'none',
        synced: SHIPMENT_SHIPPED,
        url: named[0]!.shipmentUrl,
      });
  }
  const others = live.filter((s) => !s.shipmentIdUser || !names.has(s.shipmentIdUser));
  if (others.length)
    drift({
      kind: 'shipment-extra',
      field: 'shipments',
      service: `${others.length} not of a fulfillment: ${others.map(described).join(', ')}`,
      synced: `one per fulfillment (${[...names].join(', ') || 'none'})`,
    });
  return plan.parts.length;
}

function returnDrifts(c: LifeCheck, drift: (d: DriftOf) => void): void {
  const { plan, progress } = c.life;
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

/**
 * One order that lives against its last snapshot: committed (open), completed (fulfilled) or cancelled (or absent when
 * it was cancelled before it was created); one live shipment per fulfillment, named by it, shipped; each restocked
 * return's variances recorded. Its lines are compared by the caller (they need the order's entity). Answers the
 * drifts and the shipments compared.
 */
export function lifeDrifts(c: LifeCheck): { drifts: Drift[]; shipments: number } {
  const { plan, progress } = c.life;
  const drifts: Drift[] = [];
  const statusId = c.row?.statusId ?? 'none';
  const drift = (d: DriftOf) =>
    drifts.push({ stream: 'orders', key: plan.orderId, jobId: c.synced.jobId, target: { life: true, statusId }, ...d });
  const want = LIFE_STATUS[plan.status ?? 'fulfilled'];
  if (!c.row) {
    if (plan.status !== 'cancelled' || progress.orderUrl)
      drift({
        kind: 'order-missing',
        field: 'order',
        service: 'none',
        synced: `order ${plan.orderId} (${want.statusId})`,
        url: progress.orderUrl,
      });
    return { drifts, shipments: 0 };
  }
  if (statusId !== want.statusId)
    drift({ kind: want.drift, field: 'statusId', service: statusId, synced: want.statusId, url: c.row.orderUrl });
  const live = c.shipments.filter((s) => s.statusId !== SHIPMENT_CANCELLED);
  const shipments = shipmentDrifts(plan, live, statusId, drift);
  returnDrifts(c, drift);
  return { drifts, shipments };
}

/** What an order that lives moved: its last snapshot's shipped parts left their places, its restocked returns came back. */
export function lifeStockEffects(stream: string, synced: SyncedRecord, life: LifeOrder): StockEffect[] {
  const at = synced.finishedOn;
  const out: StockEffect[] = [];
  const key = life.plan.orderId;
  if (life.plan.status !== 'cancelled')
    for (const part of life.plan.parts)
      for (const i of part.shipment.shipmentItemList)
        out.push({ key, stream, facilityUrl: i.facilityUrl, productUrl: i.productUrl, quantity: -i.quantity, at });
  for (const ret of life.plan.returns)
    for (const v of ret.variances)
      for (const [productUrl, quantity] of v.lines) out.push({ key, stream, facilityUrl: v.facilityUrl, productUrl, quantity, at });
  return out;
}
