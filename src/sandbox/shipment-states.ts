import { historyEntry, type ApiContext } from './api-context.js';
import { shipmentView } from './answer-views.js';
import { syncReservations } from './reservations.js';
import type { ShipmentEntity } from './sandbox-entities.js';
import { SHIPMENT_CANCELLED, SHIPMENT_INPUT, SHIPMENT_PACKED, SHIPMENT_SHIPPED } from './shipment-status.js';
import { badRequest, notFound } from './validation.js';

const STATUSES = [SHIPMENT_INPUT, SHIPMENT_PACKED, SHIPMENT_SHIPPED, SHIPMENT_CANCELLED];

export const SHIPMENT_ACTIONS = new Set(['ship', 'pack', 'unpack', 'cancel', 'transfer']);

export function shipmentAnswer(ctx: ApiContext, s: ShipmentEntity, stockChanged = false) {
  const api = ctx.store.api;
  const invalidations = [s.shipmentUrl, `${api}/shipment`, s.primaryOrderUrl];
  if (stockChanged) invalidations.push(`${api}/inventoryitem`);
  return { ...shipmentView(ctx.profile, s), invalidations };
}

export function requireShipment(ctx: ApiContext, shipmentId: string): ShipmentEntity {
  const s = ctx.store.shipments.get(shipmentId);
  if (!s) throw notFound(`No shipment ${shipmentId}`);
  return s;
}

/**
 * Moves a shipment to a status; answers whether the stock changed. The same status is a no-op. INPUT and
 * PACKED go to each other, to SHIPPED (the items leave stock, once: SHIPPED is final, and what they carried
 * is no longer reserved for a locked order) or to CANCELLED (final).
 */
export function moveShipment(ctx: ApiContext, s: ShipmentEntity, target: string): boolean {
  assertMove(s, target);
  if (target === s.statusId) return false;
  if (target === SHIPMENT_SHIPPED) {
    for (const item of s.shipmentItemList) {
      const product = ctx.store.productByUrl(item.productUrl);
      if (product) ctx.store.inventory.takeOff(item.facilityUrl, product, item.quantity);
    }
  }
  setStatus(ctx, s, target);
  const order = ctx.store.orderByUrl(s.primaryOrderUrl);
  if (target === SHIPMENT_SHIPPED && order) syncReservations(ctx.store, order);
  return target === SHIPMENT_SHIPPED;
}

function setStatus(ctx: ApiContext, s: ShipmentEntity, target: string): void {
  s.statusId = target;
  s.lastUpdatedDate = ctx.clock.dateTime();
  s.statusIdHistoryList.push(historyEntry(ctx, target));
  ctx.store.touch();
}

/** Fails with 400 unless the shipment may move to the status (or is in it already). */
export function assertMove(s: ShipmentEntity, target: string): void {
  if (!STATUSES.includes(target))
    throw badRequest(`shipment ${s.shipmentId}: statusId ${target} is not a shipment status (${STATUSES.join(', ')})`);
  if (target === s.statusId) return;
  if (s.statusId === SHIPMENT_SHIPPED)
    throw badRequest(`Shipment ${s.shipmentId} is shipped; its status cannot change from ${SHIPMENT_SHIPPED} to ${target}`);
  if (s.statusId === SHIPMENT_CANCELLED)
    throw badRequest(`Shipment ${s.shipmentId} is cancelled; its status cannot change from ${SHIPMENT_CANCELLED} to ${target}`);
}

/**
 * POST /shipment/<id>/<action> with any body (not read): ship -> SHIPPED, pack -> PACKED, unpack -> INPUT
 * (from PACKED), cancel -> CANCELLED; an action whose state is reached already answers the shipment as is.
 * transfer answers the shipment unchanged (what it transfers is not shown).
 */
export function shipmentAction(ctx: ApiContext, shipmentId: string, action: string) {
  const s = requireShipment(ctx, shipmentId);
  let stock = false;
  switch (action) {
    case 'ship':
      stock = moveShipment(ctx, s, SHIPMENT_SHIPPED);
      break;
    case 'pack':
      stock = moveShipment(ctx, s, SHIPMENT_PACKED);
      break;
    case 'unpack':
      stock = moveShipment(ctx, s, SHIPMENT_INPUT);
      break;
    case 'cancel':
      stock = moveShipment(ctx, s, SHIPMENT_CANCELLED);
      break;
    case 'transfer':
      break;
    default:
      throw notFound(`No action ${action} on shipments`);
  }
  ctx.counters.actions++;
  return shipmentAnswer(ctx, s, stock);
}

/**
 * Cancels a shipment of a cancelled order, a shipped one too: the service cancels an order's shipments with it,
 * so the record of what was shipped is lost, while the stock it took stays taken. Answers whether it changed.
 */
export function cancelShipmentOf(ctx: ApiContext, shipmentUrl: string): boolean {
  const id = ctx.store.idOf(shipmentUrl, 'shipment');
  const s = id === undefined ? undefined : ctx.store.shipments.get(id);
  if (!s || s.statusId === SHIPMENT_CANCELLED) return false;
  setStatus(ctx, s, SHIPMENT_CANCELLED);
  return true;
}
