import { NotFoundError } from '../../src/client/answers/errors.js';
import type { ServiceView } from '../../src/ops/reconcile-service.js';
import type { Drift } from '../../src/ops/reconcile-types.js';
import { compareOrder } from './order-compare.js';
import type { OrderPlan } from './order-plan.js';
import type { OrderRow } from './order-rows.js';

const ORDER_COMPLETED = 'ORDER_COMPLETED';
/** Totals are money: a difference below half a cent is rounding. */
export const TOTAL_TOLERANCE = 0.005;

export const totalOf = (plan: OrderPlan) => plan.order.orderItemList.reduce((n, i) => n + i.quantity * i.unitPrice, 0);
const money = (n: number) => String(Math.round(n * 1e6) / 1e6);

/** Reads the order (one GET) and names the lines that differ; the total alone when the lines cannot say. */
export async function lineDrifts(
  view: ServiceView,
  url: string,
  plan: OrderPlan,
  jobId: string,
  serviceTotal: number | undefined,
  total: number,
): Promise<Drift[]> {
  const base = { stream: 'orders' as const, key: plan.orderId, jobId, url };
  let order;
  try {
    order = await view.call((client, opts) => client.getOrder(url, opts));
  } catch (err) {
    if (err instanceof NotFoundError)
      return [{ ...base, kind: 'order-missing', field: 'order', service: 'none (404)', synced: `order ${plan.orderId}` }];
    throw err;
  }
  const lines = compareOrder(order, plan).filter((d) => d.field.startsWith('lines'));
  if (lines.length) return lines.map((d) => ({ ...base, kind: 'order-lines', field: d.field, service: d.service, synced: d.record }));
  // Under --deep every order is read: lines that match and a total that matches are no drift.
  if (serviceTotal === undefined || Math.abs(serviceTotal - total) <= TOTAL_TOLERANCE) return [];
  return [{ ...base, kind: 'order-lines', field: 'orderItemListTotal', service: money(serviceTotal), synced: money(total) }];
}

/**
 * An order that lives: its origin and lines against the snapshot's (read when the total differs, or `deep`). Other
 * lines are the service's to change while the order is not completed (`order-items`), a person's once it is.
 */
export async function lifeLines(
  view: ServiceView,
  url: string,
  plan: OrderPlan,
  jobId: string,
  row: OrderRow,
  deep?: boolean,
): Promise<Drift[]> {
  const out: Drift[] = [];
  const target = { life: true, statusId: row.statusId ?? 'none' };
  if (row.originFacilityUrl !== undefined && row.originFacilityUrl !== plan.order.originFacilityUrl)
    out.push({
      stream: 'orders',
      key: plan.orderId,
      jobId,
      url,
      target,
      kind: 'order-origin',
      field: 'originFacilityUrl',
      service: row.originFacilityUrl,
      synced: plan.order.originFacilityUrl,
    });
  const total = totalOf(plan);
  if (!deep && row.orderItemListTotal !== undefined && Math.abs(row.orderItemListTotal - total) <= TOTAL_TOLERANCE) return out;
  const lines = await lineDrifts(view, url, plan, jobId, row.orderItemListTotal, total);
  const completed = row.statusId === ORDER_COMPLETED;
  return [...out, ...lines.map((d) => ({ ...d, target, kind: d.kind === 'order-lines' && !completed ? 'order-items' : d.kind }))];
}
