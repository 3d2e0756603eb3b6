import { historyEntry, type ApiContext } from './api-context.js';
import { ORDER_CANCELLED, ORDER_COMPLETED, ORDER_CREATED, ORDER_LOCKED } from './order-status.js';
import { assertEditable, orderAnswer, orderCancelled, requireOrder } from './orders.js';
import { syncReservations } from './reservations.js';
import type { OrderEntity } from './sandbox-entities.js';
import { cancelShipmentOf } from './shipment-states.js';
import { notFound, orderCompleted } from './validation.js';

/** The order actions, under every profile (edit of a completed order only where the profile has editAction). */
export const ORDER_ACTIONS: ReadonlySet<string> = new Set(['complete', 'lock', 'edit', 'cancel', 'reserveall']);

/**
 * POST /order/<orderId>/<action> with any body (not read). States (docs/sandbox.md):
 * - complete: CREATED or LOCKED -> COMPLETED; a completed order answers the completed-order refusal;
 * - lock: CREATED -> LOCKED, committed: no more changes by POST to the order (shipments and complete still
 *   work), its units not yet shipped reserved;
 * - edit: LOCKED -> CREATED, editable again (and, under `observed`, COMPLETED -> CREATED); CREATED answers as is;
 * - cancel: CREATED or LOCKED -> CANCELLED, cancelling its shipments, shipped ones too;
 * - reserveall: answers the order (a locked order's units are reserved already);
 * and a cancelled order refuses them all but cancel. Reservations go with every status change.
 */
export function orderAction(ctx: ApiContext, orderId: string, action: string) {
  const order = requireOrder(ctx, orderId);
  if (!ORDER_ACTIONS.has(action)) throw notFound(`No action ${action} on orders`);
  if (action === 'edit') return editOrder(ctx, order);
  if (order.statusId === ORDER_COMPLETED) throw orderCompleted(orderId, ctx.profile.closedOrderStatus);
  const cancelled = order.statusId === ORDER_CANCELLED;
  const extra: string[] = [];
  switch (action) {
    case 'complete':
      if (cancelled) throw orderCancelled(ctx, orderId, 'completed');
      setStatus(ctx, order, ORDER_COMPLETED, extra);
      break;
    case 'lock':
      if (cancelled) throw orderCancelled(ctx, orderId, 'locked');
      if (order.statusId === ORDER_CREATED) setStatus(ctx, order, ORDER_LOCKED, extra);
      break;
    case 'cancel':
      if (!cancelled) cancelOrder(ctx, order, extra);
      break;
    case 'reserveall':
      assertEditable(ctx, order, true);
      break;
  }
  ctx.counters.actions++;
  return orderAnswer(ctx, order, extra);
}

/** POST /order/<orderId>/orderItem/<itemId>/reserve: answers the order while it can change. */
export function reserveItem(ctx: ApiContext, orderId: string, itemId: string) {
  const order = requireOrder(ctx, orderId);
  if (!order.orderItemList.some((i) => i.orderItemUrl.endsWith(`/orderItem/${encodeURIComponent(itemId)}`)))
    throw notFound(`No order item ${itemId} in order ${orderId}`);
  assertEditable(ctx, order, true);
  ctx.counters.actions++;
  return orderAnswer(ctx, order);
}

/**
 * actionUrlEdit: a locked order back to ORDER_CREATED, its reservations released; a completed one too where
 * the profile has editAction (docs/service.md "States"), else its /edit is no action (404).
 */
function editOrder(ctx: ApiContext, order: OrderEntity) {
  if (order.statusId === ORDER_CANCELLED) throw orderCancelled(ctx, order.orderId, 'edited');
  if (order.statusId === ORDER_COMPLETED && !ctx.profile.editAction)
    throw notFound(`No action edit on order ${order.orderId}: nothing makes a completed order editable under the spec profile`);
  const extra: string[] = [];
  if (order.statusId !== ORDER_CREATED) setStatus(ctx, order, ORDER_CREATED, extra);
  ctx.counters.actions++;
  return orderAnswer(ctx, order, extra);
}

/** ORDER_CANCELLED, with its shipments (shipped ones too: cancelShipmentOf). */
function cancelOrder(ctx: ApiContext, order: OrderEntity, extra: string[]): void {
  setStatus(ctx, order, ORDER_CANCELLED, extra);
  const cancelled = order.shipmentUrlList.filter((url) => cancelShipmentOf(ctx, url));
  if (cancelled.length) extra.push(...cancelled, `${ctx.store.api}/shipment`);
}

/** Moves the order and its reservations; `extra` gets the inventory item collection when those changed. */
function setStatus(ctx: ApiContext, order: OrderEntity, statusId: string, extra: string[]): void {
  order.statusId = statusId;
  order.lastUpdatedDate = ctx.clock.dateTime();
  ctx.store.orderHistory.get(order.orderId)?.push(historyEntry(ctx, statusId));
  ctx.store.touch();
  if (syncReservations(ctx.store, order)) extra.push(`${ctx.store.api}/inventoryitem`);
}
