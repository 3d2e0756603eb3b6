import { historyEntry, type ApiContext } from './api-context.js';
import { ORDER_CANCELLED, ORDER_COMPLETED, ORDER_CREATED, ORDER_LOCKED } from './order-status.js';
import { assertEditable, orderAnswer, orderCancelled, requireOrder } from './orders.js';
import type { ProfileRules } from './profile-rules.js';
import type { OrderEntity } from './sandbox-entities.js';
import { cancelShipmentOf } from './shipment-states.js';
import { notFound, orderCompleted } from './validation.js';

const ORDER_ACTIONS = new Set(['complete', 'lock', 'cancel', 'reserveall']);
const WITH_EDIT = new Set([...ORDER_ACTIONS, 'edit']);

/** The order actions of a profile: `edit` only where completed orders carry actionUrlEdit. */
export function orderActions(rules: ProfileRules): ReadonlySet<string> {
  return rules.editAction ? WITH_EDIT : ORDER_ACTIONS;
}

/**
 * POST /order/<orderId>/<action> with any body (not read). States (docs/sandbox.md):
 * - complete: CREATED or LOCKED -> COMPLETED; a completed order answers the completed-order refusal;
 * - lock: CREATED -> LOCKED (no more changes by POST to the order; shipments and complete still work);
 * - cancel: CREATED or LOCKED -> CANCELLED, cancelling its shipments that are not shipped;
 * - reserveall: answers the order (reservations are not modelled);
 * - edit (observed profile): COMPLETED -> CREATED, editable again; an open order answers as it is;
 * and a cancelled order refuses them all but cancel.
 */
export function orderAction(ctx: ApiContext, orderId: string, action: string) {
  const order = requireOrder(ctx, orderId);
  if (!orderActions(ctx.profile).has(action)) throw notFound(`No action ${action} on orders`);
  if (action === 'edit') return editOrder(ctx, order);
  if (order.statusId === ORDER_COMPLETED) throw orderCompleted(orderId, ctx.profile.closedOrderStatus);
  const cancelled = order.statusId === ORDER_CANCELLED;
  const extra: string[] = [];
  switch (action) {
    case 'complete':
      if (cancelled) throw orderCancelled(ctx, orderId, 'completed');
      setStatus(ctx, order, ORDER_COMPLETED);
      break;
    case 'lock':
      if (cancelled) throw orderCancelled(ctx, orderId, 'locked');
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
      assertEditable(ctx, order, true);
      break;
  }
  ctx.counters.actions++;
  return orderAnswer(ctx, order, extra);
}

/** POST /order/<orderId>/orderItem/<itemId>/reserve: answers the order while it can change. */
export function reserveItem(ctx: ApiContext, orderId: string, itemId: string) {
  const order = requireOrder(ctx, orderId);
  if (!order.orderItemList.some((i) => i.orderItemUrl.endsWith(`/orderItem/${itemId}`)))
    throw notFound(`No order item ${itemId} in order ${orderId}`);
  assertEditable(ctx, order, true);
  ctx.counters.actions++;
  return orderAnswer(ctx, order);
}

/** actionUrlEdit: a completed order back to ORDER_CREATED (docs/service.md "What the program was built for"). */
function editOrder(ctx: ApiContext, order: OrderEntity) {
  if (order.statusId === ORDER_CANCELLED) throw orderCancelled(ctx, order.orderId, 'edited');
  if (order.statusId === ORDER_COMPLETED) setStatus(ctx, order, ORDER_CREATED);
  ctx.counters.actions++;
  return orderAnswer(ctx, order);
}

function setStatus(ctx: ApiContext, order: OrderEntity, statusId: string): void {
  order.statusId = statusId;
  order.lastUpdatedDate = ctx.clock.dateTime();
  ctx.store.orderHistory.get(order.orderId)?.push(historyEntry(ctx, statusId));
  ctx.store.touch();
}
