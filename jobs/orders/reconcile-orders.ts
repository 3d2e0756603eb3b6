import type { CatalogApi } from '../../src/catalog/types.js';
import { isReturnNotice, orderRecordSchema, tellsLife } from './order-record.js';
import { planOrder, type OrderPlan } from './order-plan.js';
import { PermanentJobError } from '../../src/queue/job-errors.js';
import type { SyncedRecord } from '../../src/ops/reconcile-synced.js';
import type { ServiceView } from '../../src/ops/reconcile-service.js';
import { serviceOrders, serviceShipments, type ShipmentRow } from './order-rows.js';
import type { Drift, Unchecked } from '../../src/ops/reconcile-types.js';
import type { ReconcileContext, ReconcileRule } from '../../src/ops/reconcile-rule.js';
import type { StockEffect } from '../../src/ops/stock-effect.js';
import type { RedisConnection as Redis, RedisKeys } from '../../src/redis/connection.js';
import { asSnapshot, planLife } from './life-plan.js';
import { parseLife } from './life-progress.js';
import { orderKeys } from './order-keys.js';
import { lifeDrifts, lifeStockEffects, newerSnapshot, type LifeOrder } from './reconcile-life.js';
import { lifeLines, lineDrifts, TOTAL_TOLERANCE, totalOf } from './order-line-drifts.js';

const ORDER_COMPLETED = 'ORDER_COMPLETED';
const SHIPMENT_SHIPPED = 'SHIPMENT_SHIPPED';
const SHIPMENT_CANCELLED = 'SHIPMENT_CANCELLED';

/** A synced order with what its record asks of the service, resolved against the catalog; its life when it lives. */
export interface PlannedOrder {
  synced: SyncedRecord;
  plan: OrderPlan;
  life?: LifeOrder;
}

/** Resolves every synced order's record against the catalog; one that no longer resolves is unchecked. */
export async function planSyncedOrders(
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
    const record = parsed.data;
    try {
      // An order lives when its snapshot tells more than a plain fulfilled sale, or its progress says it did.
      const hash = tellsLife(record) ? undefined : await redis.hgetall(orderKeys(keys).progress(record.orderId));
      if (hash && hash.life !== '1') {
        out.push({ synced: s, plan: await planOrder(record, catalog) });
        continue;
      }
      const progress = parseLife(hash ?? (await redis.hgetall(orderKeys(keys).progress(record.orderId))));
      const life = { plan: await planLife(record, catalog), progress };
      out.push({ synced: s, plan: await planOrder(asSnapshot(record), catalog), life });
    } catch (err) {
      if (!(err instanceof PermanentJobError)) throw err;
      unchecked.push({ stream: 'orders', key: s.key, reason: err.message });
    }
  }
  return out;
}

/**
 * Orders and their shipments against the order and shipment collections (one collection GET each): an order missing,
 * not completed, with another origin, or whose item total differs (then its entity is read, one GET, to name the
 * lines; `deep` reads every order so); its shipments (rows whose primaryOrderUrl is the order) missing, not shipped,
 * or more than one.
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
  for (const { synced, plan, life } of orders) {
    const key = plan.orderId;
    const drift = (d: Omit<Drift, 'stream' | 'key' | 'jobId'>) => drifts.push({ stream: 'orders', key, jobId: synced.jobId, ...d });
    const recorded = typeof synced.details.orderUrl === 'string' ? synced.details.orderUrl : life?.progress.orderUrl;
    const row = (recorded && byUrl.get(recorded)) || byId.get(key);
    if (life) {
      const url = row?.orderUrl ?? recorded;
      const r = lifeDrifts({ synced, life, row, shipments: url ? (shipmentsOf.get(url) ?? []) : [], unchecked: o.unchecked ?? [] });
      drifts.push(...r.drifts);
      shipments += r.shipments;
      if (row && url && life.plan.status !== 'cancelled') drifts.push(...(await lifeLines(view, url, plan, synced.jobId, row, o.deep)));
      continue;
    }
    if (!row) {
      drift({ kind: 'order-missing', field: 'order', service: 'none', synced: `order ${key} (${ORDER_COMPLETED})`, url: recorded });
      continue;
    }
    const url = row.orderUrl ?? recorded;
    if (row.statusId !== ORDER_COMPLETED)
      drift({ kind: 'order-not-completed', field: 'statusId', service: row.statusId ?? 'none', synced: ORDER_COMPLETED, url });
    if (row.originFacilityUrl !== undefined && row.originFacilityUrl !== plan.order.originFacilityUrl) {
      drift({
        kind: 'order-origin',
        field: 'originFacilityUrl',
        service: row.originFacilityUrl,
        synced: plan.order.originFacilityUrl,
        url,
      });
    }
    const total = totalOf(plan);
    if (url && (o.deep || row.orderItemListTotal === undefined || Math.abs(row.orderItemListTotal - total) > TOTAL_TOLERANCE)) {
      drifts.push(...(await lineDrifts(view, url, plan, synced.jobId, row.orderItemListTotal, total)));
    }

    shipments++;
    const all = url ? (shipmentsOf.get(url) ?? []) : [];
    const live = all.filter((s) => s.statusId !== SHIPMENT_CANCELLED);
    const cancelled = all.length - live.length;
    if (live.length === 0) {
      drift({
        kind: 'shipment-missing',
        field: 'shipment',
        service: cancelled ? `${cancelled} cancelled, none live` : 'none',
        synced: `one shipment (${SHIPMENT_SHIPPED})`,
        url,
      });
    } else if (live.length > 1) {
      const list = live.map((s) => `${s.shipmentUrl ?? s.shipmentId ?? '?'} (${s.statusId ?? '?'})`).join(', ');
      drift({ kind: 'shipment-extra', field: 'shipments', service: `${live.length}: ${list}`, synced: '1', url });
    } else if (live[0]!.statusId !== SHIPMENT_SHIPPED) {
      drift({
        kind: 'shipment-not-shipped',
        field: 'shipment statusId',
        service: live[0]!.statusId ?? 'none',
        synced: SHIPMENT_SHIPPED,
        url: live[0]!.shipmentUrl,
      });
    }
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

/** What the synced orders moved: each shipped line leaves its origin's stock when the order's job finished. */
export async function orderStockEffects(ctx: ReconcileContext): Promise<StockEffect[]> {
  return (await syncedOrders(ctx)).flatMap(({ synced, plan, life }) =>
    life
      ? lifeStockEffects(ctx.stream, synced, life)
      : plan.shipment.shipmentItemList.map((item) => ({
          key: plan.orderId,
          stream: ctx.stream,
          facilityUrl: item.facilityUrl,
          productUrl: item.productUrl,
          quantity: -item.quantity,
          at: synced.finishedOn,
        })),
  );
}

/** `reconcile` of the orders: each synced order and its shipment against the service. */
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
