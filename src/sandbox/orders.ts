import { z } from 'zod';
import { checkReadOnly, historyEntry, type ApiContext } from './api-context.js';
import { orderView } from './answer-views.js';
import { round } from './inventory.js';
import { ORDER_CANCELLED, ORDER_COMPLETED, ORDER_CREATED, ORDER_LOCKED } from './order-status.js';
import { requireMagazine, requireProductPair } from './references.js';
import type { OrderEntity, OrderItemEntity } from './sandbox-entities.js';
import { ApiError, badRequest, duplicate, missingReference, notFound, orderCompleted, parseBody, parseDateTime } from './validation.js';

const ORDER_TYPES = new Set(['SALES_ORDER', 'PURCHASE_ORDER']);

const itemSchema = z.object({
  orderItemUrl: z.string().optional(),
  productId: z.string().min(1),
  productUrl: z.string().min(1),
  unitPrice: z.number().nonnegative(),
  quantity: z.number().positive(),
});
const lists = {
  orderAdjustmentList: z.array(z.unknown()).optional(),
  orderRoleList: z.array(z.unknown()).optional(),
  contentList: z.array(z.unknown()).optional(),
  userFieldDataList: z.array(z.unknown()).optional(),
};
const createSchema = z.object({
  orderId: z.string().min(1).max(255),
  orderTypeId: z.string().min(1),
  originFacilityUrl: z.string().min(1),
  orderDate: z.string().optional(),
  orderItemList: z.array(itemSchema),
  ...lists,
});
const modifySchema = z.object({
  originFacilityUrl: z.string().min(1).optional(),
  orderDate: z.string().optional(),
  orderItemList: z.array(itemSchema).optional(),
  ...lists,
});
/** Fields a POST to an order URL cannot change (sending them unchanged is fine). */
const READ_ONLY = [
  'orderId',
  'orderUrl',
  'orderTypeId',
  'statusId',
  'createdDate',
  'lastUpdatedDate',
  'orderHistoryListUrl',
  'actionUrlLock',
  'actionUrlComplete',
  'actionUrlCancel',
  'actionUrlEdit',
  'reserveAllUrl',
  'orderItemListTotal',
  'shipmentUrlList',
  'invoiceUrlList',
] as const;

export function orderAnswer(ctx: ApiContext, order: OrderEntity, extra: string[] = []) {
  const api = ctx.store.api;
  return {
    ...orderView(ctx.profile, order),
    invalidations: [order.orderUrl, `${api}/order`, `${api}/ordersummary`, order.orderHistoryListUrl, ...extra],
  };
}

/** POST /order */
export function createOrder(ctx: ApiContext, body: unknown) {
  const b = parseBody(createSchema, body, 'order');
  const { store } = ctx;
  if (!ORDER_TYPES.has(b.orderTypeId)) throw missingReference(`orderType ${b.orderTypeId} (orderTypeId)`);
  if (store.orders.has(b.orderId)) throw duplicate(`order with orderId ${b.orderId}`);
  requireMagazine(ctx, b.originFacilityUrl, 'originFacilityUrl');
  const now = ctx.clock.dateTime();
  const orderUrl = store.url('order', b.orderId);
  const order: OrderEntity = {
    orderId: b.orderId,
    orderUrl,
    orderTypeId: b.orderTypeId,
    statusId: ORDER_CREATED,
    originFacilityUrl: b.originFacilityUrl,
    orderDate: b.orderDate === undefined ? now : dateTime(b.orderDate, 'orderDate'),
    createdDate: now,
    lastUpdatedDate: now,
    orderHistoryListUrl: `${orderUrl}/history/`,
    actionUrlLock: `${orderUrl}/lock`,
    actionUrlComplete: `${orderUrl}/complete`,
    actionUrlCancel: `${orderUrl}/cancel`,
    actionUrlEdit: `${orderUrl}/edit`,
    reserveAllUrl: `${orderUrl}/reserveall`,
    orderItemListTotal: 0,
    orderItemList: [],
    orderAdjustmentList: b.orderAdjustmentList ?? [],
    orderRoleList: b.orderRoleList ?? [],
    contentList: b.contentList ?? [],
    userFieldDataList: b.userFieldDataList ?? [],
    shipmentUrlList: [],
  };
  setItems(ctx, order, b.orderItemList);
  store.orders.set(order.orderId, order);
  store.orderHistory.set(order.orderId, [historyEntry(ctx, ORDER_CREATED)]);
  store.touch();
  ctx.counters.creates.order++;
  return {
    ...orderView(ctx.profile, order),
    invalidations: [`${store.api}/order`, `${store.api}/ordersummary`, order.orderHistoryListUrl],
  };
}

/** POST /order/<orderId>: changes the fields sent, while the order is neither completed, locked nor cancelled. */
export function modifyOrder(ctx: ApiContext, orderId: string, body: unknown) {
  const order = requireOrder(ctx, orderId);
  assertEditable(ctx, order);
  const b = parseBody(modifySchema, body, `order ${orderId}`);
  checkReadOnly(orderView(ctx.profile, order), body as Record<string, unknown>, READ_ONLY, `order ${orderId}`);
  if (b.originFacilityUrl !== undefined) requireMagazine(ctx, b.originFacilityUrl, 'originFacilityUrl');
  const orderDate = b.orderDate === undefined ? undefined : dateTime(b.orderDate, 'orderDate');
  if (b.orderItemList) setItems(ctx, order, b.orderItemList);
  if (b.originFacilityUrl !== undefined) order.originFacilityUrl = b.originFacilityUrl;
  if (orderDate !== undefined) order.orderDate = orderDate;
  for (const k of ['orderAdjustmentList', 'orderRoleList', 'contentList', 'userFieldDataList'] as const) {
    const v = b[k];
    if (v) order[k] = v;
  }
  order.lastUpdatedDate = ctx.clock.dateTime();
  ctx.store.touch();
  ctx.counters.modifications++;
  return orderAnswer(ctx, order);
}

export function requireOrder(ctx: ApiContext, orderId: string): OrderEntity {
  const order = ctx.store.orders.get(orderId);
  if (!order) throw notFound(`No order ${orderId}`);
  return order;
}

/**
 * Refuses changes to a completed or cancelled order (400, or 403 under `observed`: docs/service.md
 * "Writing") and, unless `allowLocked`, to a locked one (400).
 */
export function assertEditable(ctx: ApiContext, order: OrderEntity, allowLocked = false): void {
  if (order.statusId === ORDER_COMPLETED) throw orderCompleted(order.orderId, ctx.profile.closedOrderStatus);
  if (order.statusId === ORDER_CANCELLED) throw orderCancelled(ctx, order.orderId, 'modified');
  if (order.statusId === ORDER_LOCKED && !allowLocked) throw badRequest(`Order ${order.orderId} is locked and cannot be modified`);
}

/** A write to a cancelled order: 400, or 403 under `observed`, like a completed one. */
export function orderCancelled(ctx: ApiContext, orderId: string, what: string): ApiError {
  return new ApiError(ctx.profile.closedOrderStatus, `Order ${orderId} is cancelled and cannot be ${what}`);
}

/**
 * Replaces the order's items: an item sent with the orderItemUrl of an existing item keeps its id, the
 * others get the next zero-padded ids. Checks every item before changing anything.
 */
function setItems(ctx: ApiContext, order: OrderEntity, items: z.output<typeof itemSchema>[]): void {
  const known = new Set(order.orderItemList.map((i) => i.orderItemUrl));
  let next = order.orderItemList.reduce((m, i) => Math.max(m, Number(i.orderItemUrl.slice(-5)) || 0), 0) + 1;
  const out: OrderItemEntity[] = items.map((it, i) => {
    const field = `orderItemList[${i}]`;
    requireProductPair(ctx, it, field);
    if (it.orderItemUrl !== undefined && !known.has(it.orderItemUrl))
      throw missingReference(`orderItem ${it.orderItemUrl} (${field}.orderItemUrl)`);
    const orderItemUrl = it.orderItemUrl ?? `${order.orderUrl}/orderItem/${String(next++).padStart(5, '0')}`;
    return {
      orderItemUrl,
      reserveUrl: `${orderItemUrl}/reserve`,
      productId: it.productId,
      productUrl: it.productUrl,
      unitPrice: it.unitPrice,
      quantity: it.quantity,
    };
  });
  order.orderItemList = out;
  order.orderItemListTotal = round(out.reduce((sum, i) => sum + i.quantity * i.unitPrice, 0));
}

/** A sent date-time in the service's form (seconds), or a 400 naming the field. */
function dateTime(s: string, field: string): string {
  if (!parseDateTime(s)) throw badRequest(`${field}: ${s} is not a date-time of the form YYYY-MM-DDTHH:MM:SS`);
  return s.slice(0, 19);
}
