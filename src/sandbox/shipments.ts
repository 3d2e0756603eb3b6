import { z } from 'zod';
import { checkReadOnly, historyEntry, type ApiContext } from './api-context.js';
import { shipmentView } from './answer-views.js';
import { assertEditable } from './orders.js';
import { requireLocation, requireProductPair } from './references.js';
import type { ShipmentEntity, ShipmentItemEntity } from './sandbox-entities.js';
import { assertMove, moveShipment, requireShipment, shipmentAnswer } from './shipment-states.js';
import { SHIPMENT_CANCELLED, SHIPMENT_INPUT } from './shipment-status.js';
import { badRequest, duplicate, missingReference, parseBody } from './validation.js';

const SHIPMENT_TYPES = new Set(['SALES_SHIPMENT', 'PURCHASE_SHIPMENT', 'TRANSFER']);

const itemSchema = z.object({
  facilityUrl: z.string().min(1),
  productId: z.string().min(1),
  productUrl: z.string().min(1),
  quantity: z.number().positive(),
});
const createSchema = z.object({
  shipmentId: z.string().min(1).max(255).optional(),
  shipmentIdUser: z.string().nullish(),
  shipmentTypeId: z.string().min(1),
  primaryOrderUrl: z.string().min(1),
  statusId: z.string().min(1),
  shipmentItemList: z.array(itemSchema),
  userFieldDataList: z.array(z.unknown()).optional(),
  contentList: z.array(z.unknown()).optional(),
});
const modifySchema = z.object({
  statusId: z.string().min(1).optional(),
  shipmentIdUser: z.string().nullish(),
  shipmentItemList: z.array(itemSchema).optional(),
  userFieldDataList: z.array(z.unknown()).optional(),
  contentList: z.array(z.unknown()).optional(),
});
const READ_ONLY = [
  'shipmentId',
  'shipmentUrl',
  'shipmentTypeId',
  'primaryOrderUrl',
  'createdDate',
  'lastUpdatedDate',
  'actionUrlCancel',
  'actionUrlPack',
  'actionUrlUnpack',
  'actionUrlShip',
  'actionUrlTransfer',
  'statusIdHistoryList',
  'transferList',
] as const;

/**
 * POST /shipment: attached to an existing, editable order; items taken from locations. Under `spec` a client
 * shipmentId is kept (a second create with it is a duplicate); under `observed` it is ignored and every create
 * makes a new shipment with the next number, as the real service is seen doing (docs/service.md "What the program was built for").
 */
export function createShipment(ctx: ApiContext, body: unknown) {
  const b = parseBody(createSchema, body, 'shipment');
  const { store } = ctx;
  if (!SHIPMENT_TYPES.has(b.shipmentTypeId)) throw missingReference(`shipmentType ${b.shipmentTypeId} (shipmentTypeId)`);
  if (b.statusId !== SHIPMENT_INPUT) throw badRequest(`shipment: statusId: a shipment is created in ${SHIPMENT_INPUT}, not ${b.statusId}`);
  const clientId = ctx.profile.serverShipmentIds ? undefined : b.shipmentId;
  if (clientId !== undefined && store.shipments.has(clientId)) throw duplicate(`shipment with shipmentId ${clientId}`);
  const order = store.orderByUrl(b.primaryOrderUrl);
  if (!order) throw missingReference(`order ${b.primaryOrderUrl} (primaryOrderUrl)`);
  assertEditable(ctx, order, true);
  const items = checkItems(ctx, b.shipmentItemList);
  const id = clientId ?? store.nextShipmentId();
  const url = store.url('shipment', id);
  const now = ctx.clock.dateTime();
  const s: ShipmentEntity = {
    shipmentId: id,
    shipmentIdUser: b.shipmentIdUser ?? null,
    shipmentUrl: url,
    shipmentTypeId: b.shipmentTypeId,
    primaryOrderUrl: order.orderUrl,
    statusId: SHIPMENT_INPUT,
    createdDate: now,
    lastUpdatedDate: now,
    actionUrlCancel: `${url}/cancel`,
    actionUrlPack: `${url}/pack`,
    actionUrlUnpack: `${url}/unpack`,
    actionUrlShip: `${url}/ship`,
    actionUrlTransfer: `${url}/transfer`,
    shipmentItemList: items,
    statusIdHistoryList: [historyEntry(ctx, null)],
    userFieldDataList: b.userFieldDataList ?? [],
    contentList: b.contentList ?? [],
    transferList: [],
  };
  store.shipments.set(id, s);
  order.shipmentUrlList.push(url);
  order.lastUpdatedDate = now;
  store.touch();
  ctx.counters.creates.shipment++;
  return { ...shipmentView(ctx.profile, s), invalidations: [`${store.api}/shipment`, `${store.api}/order`, order.orderUrl] };
}

/**
 * POST /shipment/<id>: statusId moves it (see moveShipment); shipmentIdUser, userFieldDataList and contentList
 * change at any time before it is cancelled; shipmentItemList only while SHIPMENT_INPUT.
 */
export function modifyShipment(ctx: ApiContext, shipmentId: string, body: unknown) {
  const s = requireShipment(ctx, shipmentId);
  const b = parseBody(modifySchema, body, `shipment ${shipmentId}`);
  checkReadOnly(shipmentView(ctx.profile, s), body as Record<string, unknown>, READ_ONLY, `shipment ${shipmentId}`);
  const target = b.statusId ?? s.statusId;
  const otherChanges = b.shipmentItemList !== undefined || b.shipmentIdUser !== undefined || b.userFieldDataList || b.contentList;
  if (otherChanges && s.statusId === SHIPMENT_CANCELLED) throw badRequest(`Shipment ${shipmentId} is cancelled and cannot be modified`);
  assertMove(s, target);
  let items: ShipmentItemEntity[] | undefined;
  if (b.shipmentItemList) {
    if (s.statusId !== SHIPMENT_INPUT || target !== SHIPMENT_INPUT) {
      throw badRequest(
        `shipment ${shipmentId}: shipmentItemList can change only while the shipment is ${SHIPMENT_INPUT} (it is ${s.statusId})`,
      );
    }
    items = checkItems(ctx, b.shipmentItemList);
  }
  if (items) s.shipmentItemList = items;
  if (b.shipmentIdUser !== undefined) s.shipmentIdUser = b.shipmentIdUser;
  if (b.userFieldDataList) s.userFieldDataList = b.userFieldDataList;
  if (b.contentList) s.contentList = b.contentList;
  const stock = moveShipment(ctx, s, target);
  if (otherChanges) {
    s.lastUpdatedDate = ctx.clock.dateTime();
    ctx.store.touch();
  }
  ctx.counters.modifications++;
  return shipmentAnswer(ctx, s, stock);
}

function checkItems(ctx: ApiContext, items: z.output<typeof itemSchema>[]): ShipmentItemEntity[] {
  return items.map((it, i) => {
    const field = `shipmentItemList[${i}]`;
    requireLocation(ctx, it.facilityUrl, `${field}.facilityUrl`);
    requireProductPair(ctx, it, field);
    return { facilityUrl: it.facilityUrl, productId: it.productId, productUrl: it.productUrl, quantity: it.quantity };
  });
}
