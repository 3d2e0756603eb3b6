import type { CatalogApi } from '../../src/catalog/types.js';
import type { ReconcileContext, ReconcileRule } from '../../src/ops/reconcile-rule.js';
import type { ServiceView } from '../../src/ops/reconcile-service.js';
import type { SyncedRecord } from '../../src/ops/reconcile-synced.js';
import type { Drift, Unchecked } from '../../src/ops/reconcile-types.js';
import type { StockEffect } from '../../src/ops/stock-effect.js';
import { PermanentJobError } from '../../src/queue/job-errors.js';
import type { RedisConnection as Redis, RedisKeys } from '../../src/redis/connection.js';
import { orderDrifts, orderLines } from './order-drifts.js';
import { orderKeys } from './order-keys.js';
import { planOrder, type OrderPlan } from './order-plan.js';
import { isOlder, parseProgress, type OrderProgress } from './order-progress.js';
import { isReturnNotice, orderRecordSchema } from './order-record.js';
import { serviceOrders, serviceShipments, type ShipmentRow } from './order-rows.js';

/** A synced order: its last record as planned against the catalog, and its progress. */
export interface PlannedOrder {
  synced: SyncedRecord;
  plan: OrderPlan;
  progress: OrderProgress;
}

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

/** Resolves every synced order's last record against the catalog; one that no longer resolves is unchecked. */
async function planSyncedOrders(
  synced: Map<string, SyncedRecord>,
  catalog: CatalogApi,
  unchecked: Unchecked[],
  redis: Redis,
  keys: RedisKeys,
): Promise<PlannedOrder[]> {
  const out: PlannedOrder[] = [];
  for (const s of synced.values()) {
    const parsed = orderRecordSchema.safeParse(s.record);
    if (!parsed.success || isReturnNotice(parsed.data)) continue;
    try {
      const plan = await planOrder(parsed.data, catalog);
      out.push({ synced: s, plan, progress: parseProgress(await redis.hgetall(orderKeys(keys).progress(plan.orderId)), plan) });
    } catch (err) {
      if (!(err instanceof PermanentJobError)) throw err;
      unchecked.push({ stream: 'orders', key: s.key, reason: err.message });
    }
  }
  return out;
}

/**
 * Orders and their shipments against the order and shipment collections (one collection GET each): an order missing,
 * in another status than its last record asks, with another origin, or whose item total differs (then its entity is
 * read, one GET, to name the lines; `deep` reads every order so); its shipments (rows whose primaryOrderUrl is the
 * order) missing, not shipped or extra; a restocked return's variances not recorded.
 */
export async function reconcileOrders(
  orders: PlannedOrder[],
  view: ServiceView,
  o: { deep?: boolean; unchecked?: Unchecked[] } = {},
): Promise<{ drifts: Drift[]; shipments: number }> {
  const drifts: Drift[] = [];
  if (orders.length === 0) return { drifts, shipments: 0 };
  const [rows, shipmentRows] = await Promise.all([serviceOrders(view), serviceShipments(view)]);
  const byUrl = new Map(rows.filter((r) => r.orderUrl).map((r) => [r.orderUrl!, r]));
  const byId = new Map(rows.filter((r) => r.orderId).map((r) => [r.orderId!, r]));
  const shipmentsOf = new Map<string, ShipmentRow[]>();
  for (const s of shipmentRows)
    if (s.primaryOrderUrl) shipmentsOf.set(s.primaryOrderUrl, [...(shipmentsOf.get(s.primaryOrderUrl) ?? []), s]);
  let shipments = 0;
  for (const { synced, plan, progress } of orders) {
    const recorded = typeof synced.details.orderUrl === 'string' ? synced.details.orderUrl : progress.orderUrl;
    const row = (recorded && byUrl.get(recorded)) || byId.get(plan.orderId);
    const url = row?.orderUrl ?? recorded;
    const c = { synced, plan, progress, row, recorded, shipments: url ? (shipmentsOf.get(url) ?? []) : [], unchecked: o.unchecked ?? [] };
    const r = orderDrifts(c);
    drifts.push(...r.drifts);
    shipments += r.shipments;
    if (row && url && plan.status !== 'cancelled') drifts.push(...(await orderLines(view, { ...c, row, url }, o.deep)));
  }
  return { drifts, shipments };
}

/** The synced orders resolved once per run: the order rule compares them, the stock rule reads their shipments. */
export function syncedOrders(ctx: ReconcileContext): Promise<PlannedOrder[]> {
  // Orders that no longer resolve are listed as unchecked only when the orders themselves are reconciled.
  return ctx.memo('synced-orders', async () =>
    planSyncedOrders(await ctx.synced(ctx.stream), ctx.catalog, ctx.wanted.has(ctx.stream) ? ctx.unchecked : [], ctx.redis, ctx.keys),
  );
}

/** What the synced orders moved: their last record's shipped parts left their places, its restocked returns came back. */
export async function orderStockEffects(ctx: ReconcileContext): Promise<StockEffect[]> {
  return (await syncedOrders(ctx)).flatMap(({ synced, plan }) => {
    const at = synced.finishedOn;
    const key = plan.orderId;
    const stream = ctx.stream;
    const out: StockEffect[] = [];
    if (plan.status !== 'cancelled')
      for (const part of plan.parts)
        for (const i of part.shipment.shipmentItemList)
          out.push({ key, stream, facilityUrl: i.facilityUrl, productUrl: i.productUrl, quantity: -i.quantity, at });
    for (const ret of plan.returns)
      for (const v of ret.variances)
        for (const [productUrl, quantity] of v.lines) out.push({ key, stream, facilityUrl: v.facilityUrl, productUrl, quantity, at });
    return out;
  });
}

/** `reconcile` of the orders: each synced order, its shipments and returns against the service. */
export const orderReconcile: ReconcileRule = {
  counts: ['orders', 'shipments'],
  describe: (c) => `${c.orders} orders, ${c.shipments} orders' shipments`,
  async run(ctx) {
    const orders = await syncedOrders(ctx);
    const r = await reconcileOrders(orders, ctx.view, { deep: ctx.deep, unchecked: ctx.unchecked });
    return { drifts: r.drifts, checked: { orders: orders.length, shipments: r.shipments } };
  },
  // An order's last snapshot is the newest by updatedAt, whatever order their jobs ended in.
  newer: newerSnapshot,
};
