import { badResponse } from '../../src/client/answers/classify.js';
import { NotFoundError } from '../../src/client/answers/errors.js';
import type { Order, ReadOrder, ReadShipment } from '../../src/client/answers/schemas.js';
import type { JobContext } from '../../src/queue/job-context.js';
import { ConflictError } from '../../src/queue/job-errors.js';
import { settleLaterUnlessPast } from '../../src/queue/settle-later.js';
import { findLostVariance } from '../stock/settle-variance.js';
import { compareOrder, compareShipment } from './order-compare.js';
import { completedOrderChanged, orderConflict } from './order-errors.js';
import { itemsHashOf, unitsHashOf, type OrderPlan, type Units } from './order-plan.js';
import type { KnownPart, OrderActions, OrderProgress, ProgressWrite, ServiceStatus } from './order-progress.js';

const STATUS: Record<string, ServiceStatus> = {
  ORDER_CREATED: 'created',
  ORDER_LOCKED: 'locked',
  ORDER_COMPLETED: 'completed',
  ORDER_CANCELLED: 'cancelled',
};
export const SHIPMENT_SHIPPED = 'SHIPMENT_SHIPPED';
const SHIPMENT_CANCELLED = 'SHIPMENT_CANCELLED';

/** A shipment as read, with the URL it was read at (the one the order lists). */
interface ListedShipment {
  url: string;
  shipment: ReadShipment;
}

/** The order as the service has it, with its live shipments (a cancelled or deleted one is gone). */
interface SeenOrder {
  order: ReadOrder;
  shipments: ListedShipment[];
}

/** An order answer's status; one this program does not know counts as editable (created). */
export function statusOf(order: Pick<Order, 'statusId'>): ServiceStatus {
  return STATUS[order.statusId ?? ''] ?? 'created';
}

/** The action URLs an order answer carries (null and absent alike: not allowed now). */
export function actionsOf(order: Order): OrderActions {
  const out: OrderActions = {};
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

/**
 * The order's shipment URLs. `null` reads as none; a missing list is a BAD_RESPONSE naming the field and the
 * URL: without it the order cannot say whether its shipment exists, and guessing could ship twice.
 */
export function shipmentUrlsOf(order: ReadOrder): string[] {
  if (order.shipmentUrlList) return order.shipmentUrlList;
  throw badResponse('GET', order.orderUrl, 200, "shipmentUrlList: is missing (needed to find the order's shipment)");
}

async function orNone<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
}

/**
 * Reads the order (one GET) and each shipment it lists (one GET each; never a URL built from an id this program
 * chose, which the service may ignore); undefined when the service has no such order.
 */
async function readOrderBack(ctx: Pick<JobContext, 'client'>, orderPath: string): Promise<SeenOrder | undefined> {
  const order = await orNone(ctx.client.getOrder(orderPath));
  if (!order) return undefined;
  const shipments: ListedShipment[] = [];
  for (const url of new Set(shipmentUrlsOf(order))) {
    const shipment = await orNone(ctx.client.getShipment(url));
    if (shipment && shipment.statusId !== SHIPMENT_CANCELLED) shipments.push({ url, shipment });
  }
  return { order, shipments };
}

/**
 * A plain record's order and shipment against the service's, compared together before anything is recorded: the
 * order's origin, date and items, and among the shipments named as the record's (or all of them when none is) the
 * one without a difference. Several that match, or none where some exist, are a person's (docs/orders.md "Duplicates
 * and conflicts").
 */
function plainShipment(plan: OrderPlan, seen: SeenOrder): ListedShipment | undefined {
  const part = plan.parts[0]!;
  const want = { shipmentIdUser: part.id, shipment: part.shipment, productIds: plan.productIds };
  const named = seen.shipments.filter((l) => l.shipment.shipmentIdUser === part.id);
  const compared = (named.length ? named : seen.shipments).map((l) => ({
    ...l,
    diffs: compareShipment(l.shipment, want, seen.order.orderUrl),
  }));
  const matching = compared.filter((c) => !c.diffs.length);
  if (matching.length > 1)
    throw new ConflictError(
      `order ${plan.orderId}: the order ${seen.order.orderUrl} lists ${matching.length} shipments that each match the record ` +
        `(${matching.map((m) => m.url).join(', ')}); the record has one`,
      'Cancel the extra shipment(s) in the service (stock may have been taken for each), then retry the job.',
      { orderId: plan.orderId, orderUrl: seen.order.orderUrl, shipmentUrls: matching.map((m) => m.url) },
    );
  const orderDiffs = compareOrder(seen.order, { order: plan.order!, productIds: plan.productIds });
  const closest = matching.length
    ? undefined
    : compared.reduce<(typeof compared)[number] | undefined>((a, b) => (a && a.diffs.length <= b.diffs.length ? a : b), undefined);
  const diffs = [...orderDiffs, ...(closest?.diffs ?? [])];
  if (diffs.length && statusOf(seen.order) === 'completed') throw completedOrderChanged(plan.orderId, diffs);
  if (diffs.length) throw orderConflict(plan.orderId, orderDiffs.length ? 'order' : 'shipment', diffs);
  return matching[0];
}

/** A snapshot's shipments by name (their URL when they have none); two live ones of one name are a person's. */
function namedShipments(plan: OrderPlan, seen: SeenOrder): ListedShipment[] {
  const origin = plan.order?.originFacilityUrl;
  if (origin && seen.order.originFacilityUrl && seen.order.originFacilityUrl !== origin)
    throw orderConflict(plan.orderId, 'order', [{ field: 'origin', service: seen.order.originFacilityUrl, record: origin }]);
  const byName = new Map<string, string>();
  for (const { url, shipment } of seen.shipments) {
    const name = shipment.shipmentIdUser ?? url;
    const other = byName.get(name);
    if (other)
      throw new ConflictError(
        `order ${plan.orderId}: the order ${seen.order.orderUrl} lists two live shipments named ${name} (${other}, ${url}); ` +
          'the record has one fulfillment of that name',
        'Cancel the extra shipment in the service (stock may have been taken for each), then retry the job.',
        { orderId: plan.orderId, orderUrl: seen.order.orderUrl, shipmentUrls: [other, url] },
      );
    byName.set(name, url);
  }
  return seen.shipments;
}

/**
 * What is known once the order and its shipments have been read: they replace what the progress said (returns stay:
 * they are settled by their own read). A plain record compares them with itself first; a snapshot takes its shipments
 * by name. Nothing is pending after it.
 */
function adoptOrder(plan: OrderPlan, p: OrderProgress, seen: SeenOrder | undefined): ProgressWrite {
  const parts = new Map<string, KnownPart | null>([...p.parts.keys()].map((k) => [k, null]));
  if (!seen) return { pending: '', status: '', parts, fresh: true };
  const live = plan.plain ? [plainShipment(plan, seen)].filter((l) => l !== undefined) : namedShipments(plan, seen);
  for (const { url, shipment } of live) {
    const name = plan.plain ? plan.parts[0]!.id : (shipment.shipmentIdUser ?? url);
    const units = unitsOf(shipment.shipmentItemList);
    parts.set(name, { shipped: shipment.statusId === SHIPMENT_SHIPPED, url, units, unitsHash: unitsHashOf(units) });
  }
  const { order } = seen;
  return {
    pending: '',
    status: statusOf(order),
    orderUrl: order.orderUrl,
    actions: actionsOf(order),
    items: itemsHashOf(order.orderItemList),
    parts,
    fresh: true,
  };
}

/** The path the order is read at: as the service gave it, else its entity path. */
const orderPath = (ctx: Pick<JobContext, 'client'>, plan: OrderPlan, p: OrderProgress) =>
  p.orderUrl ?? ctx.client.entityPath('order', plan.orderId);

/**
 * A return's variance whose answer was not recorded: the service's variances at its place and day say (one collection
 * GET). Not found is not applied only once the service can no longer apply it: `lostAt` (its answer's loss, else its
 * marker's time) plus ctx.lateWriteMs; before that the job reads again then (SettleLaterError).
 */
async function settleReturn(
  ctx: Pick<JobContext, 'client' | 'lateWriteMs'>,
  plan: OrderPlan,
  p: OrderProgress,
  id: string,
  lostAt = p.pendingAt ?? 0,
): Promise<ProgressWrite> {
  const ret = plan.returns.find((r) => r.id === id);
  const known = p.returns.get(id);
  const v = known?.day ? ret?.variances[known.urls.length] : undefined;
  if (!known?.day || !v) return { pending: '' };
  const url = await findLostVariance(ctx.client, {
    facilityUrl: v.facilityUrl,
    countDate: known.day,
    lines: v.lines.map(([u, q]) => [u, q] as [string, number]),
    known: new Set([...p.returns.values()].flatMap((r) => r.urls).filter(Boolean)),
  });
  if (url === undefined) settleLaterUnlessPast(lostAt, ctx.lateWriteMs, `order ${plan.orderId}: the variance of return ${id}`);
  return { pending: '', ...(url === undefined ? {} : { returns: new Map([[id, { ...known, urls: [...known.urls, url] }]]) }) };
}

/**
 * The reads that settle the write `pending` whose outcome is uncertain, and what is known after them: a ship by its
 * shipment (1 GET), an action on the order or its lines by the order (1 GET), a return by the variances of its place
 * and day (1 collection GET), a create by the order and every shipment it lists.
 */
export async function settleRead(
  ctx: Pick<JobContext, 'client' | 'lateWriteMs'>,
  plan: OrderPlan,
  p: OrderProgress,
  pending: string,
  lostAt?: number,
): Promise<ProgressWrite> {
  const [kind, id = ''] = pending.split(':');
  const part = kind === 'ship' ? p.parts.get(id) : undefined;
  if (part) {
    const s = await orNone(ctx.client.getShipment(part.url));
    const live = s && s.statusId !== SHIPMENT_CANCELLED;
    return { pending: '', parts: new Map([[id, live ? { ...part, shipped: s.statusId === SHIPMENT_SHIPPED } : null]]) };
  }
  if (kind === 'return') return settleReturn(ctx, plan, p, id, lostAt);
  if (!['lock', 'edit', 'items', 'complete', 'cancel'].includes(kind!))
    return adoptOrder(plan, p, await readOrderBack(ctx, orderPath(ctx, plan, p)));
  const order = await orNone(ctx.client.getOrder(orderPath(ctx, plan, p)));
  if (!order) return adoptOrder(plan, p, undefined);
  const status = statusOf(order);
  // A cancelled order's shipments went with it.
  const gone = status === 'cancelled' ? [...p.parts].filter(([, x]) => !x.shipped).map(([k]) => [k, null] as [string, null]) : [];
  return {
    pending: '',
    status,
    orderUrl: order.orderUrl,
    actions: actionsOf(order),
    items: itemsHashOf(order.orderItemList),
    parts: new Map(gone),
  };
}

/** Reads the order and its shipments and takes them as what is known; a pending return is settled by its own read too. */
export async function readBack(ctx: Pick<JobContext, 'client' | 'lateWriteMs'>, plan: OrderPlan, p: OrderProgress): Promise<ProgressWrite> {
  const w = adoptOrder(plan, p, await readOrderBack(ctx, orderPath(ctx, plan, p)));
  if (!p.pending?.startsWith('return:')) return w;
  const id = p.pending.slice('return:'.length, p.pending.lastIndexOf(':'));
  return { ...w, ...(await settleReturn(ctx, plan, p, id)) };
}
