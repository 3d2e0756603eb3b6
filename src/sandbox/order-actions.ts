import { historyEntry, type ApiContext } from './api-context.js';
import { ORDER_CANCELLED, ORDER_COMPLETED, ORDER_CREATED, ORDER_LOCKED } from './order-status.js';
import { assertEditable, orderAnswer, requireOrder } from './orders.js';
import type { OrderEntity } from './sandbox-entities.js';
import { cancelShipmentOf } from './shipment-states.js';
import { badRequest, notFound, orderCompleted } from './validation.js';

export const ORDER_ACTIONS = new Set(['complete', 'lock', 'cancel', 'reserveall']);

/**
 * POST /order/<orderId>/<action> with any body (not read). States (docs/sandbox.md):
 * - complete: CREATED or LOCKED -> COMPLETED; a completed order answers the completed-order 400;
 * - lock: CREATED -> LOCKED (no more changes by POST to the order; shipments and complete still work);
 * - cancel: CREATED or LOCKED -> CANCELLED, cancelling its shipments that are not shipped;
 * - reserveall: answers the order (reservations are not modelled);
 * and a cancelled order refuses them all but cancel.
 */
export function orderAction(ctx: ApiContext, orderId: string, action: string) {
  const order = requireOrder(ctx, orderId);
  if (order.statusId === ORDER_COMPLETED) throw orderCompleted(orderId);
  const cancelled = order.statusId === ORDER_CANCELLED;
  const extra: string[] = [];
  switch (action) {
    case 'complete':
      if (cancelled) throw badRequest(`Order ${orderId} is cancelled and cannot be completed`);
      setStatus(ctx, order, ORDER_COMPLETED);
      break;
    case 'lock':
      if (cancelled) throw badRequest(`Order ${orderId} is cancelled and cannot be locked`);
      if (order.statusId === ORDER_CREATED) setStatus(ctx, order, ORDER_LOCKED);
      break;
    case 'cancel':
      if (!cancelled) {
        setStatus(ctx, order, ORDER_CANCELLED);
        for (const url of order.shipmentUrlList) if (cancelShipmentOf(ctx, url)) extra.push(url);
        if (extra.length) extra.push(`${ctx.store.api}/shipment`);
      }
      break;
    case 'reserveall':
      assertEditable(order, true);
      break;
    default:
      throw notFound(`No action ${action} on orders`);
  }
  ctx.counters.actions++;
  return orderAnswer(ctx, order, extra);
}

/** POST /order/<orderId>/orderItem/<itemId>/reserve: answers the order while it can change. */
export function reserveItem(ctx: ApiContext, orderId: string, itemId: string) {
  const order = requireOrder(ctx, orderId);
  if (!order.orderItemList.some((i) => i.orderItemUrl.endsWith(`/orderItem/${itemId}`))) throw notFound(`No order item ${itemId} in order ${orderId}`);
  assertEditable(order, true);
  ctx.counters.actions++;
  return orderAnswer(ctx, order);
}

function setStatus(ctx: ApiContext, order: OrderEntity, statusId: string): void {
  order.statusId = statusId;
  order.lastUpdatedDate = ctx.clock.dateTime();
  ctx.store.orderHistory.get(order.orderId)?.push(historyEntry(ctx, statusId));
  ctx.store.touch();
}
