import { z } from 'zod';
import { checkReadOnly, historyEntry, type ApiContext } from './api-context.js';
import { varianceView } from './answer-views.js';
import { requireLocation, requireProductPair } from './references.js';
import type { VarianceEntity, VarianceItemEntity } from './sandbox-entities.js';
import { badRequest, notFound, parseBody, parseDateTime } from './validation.js';

export const PHSCL_INV_CREATED = 'PHSCL_INV_CREATED';
export const PHSCL_INV_COMMITTED = 'PHSCL_INV_COMMITTED';
export const PHSCL_INV_CANCELLED = 'PHSCL_INV_CANCELLED';

const itemSchema = z.object({
  facilityUrl: z.string().min(1).optional(),
  productUrl: z.string().min(1),
  productId: z.string().min(1).optional(),
  quantityOnHandVar: z.number(),
  quantityOnHandCount: z.number().nullish(),
  lotId: z.string().nullish(),
  normalizedPackingString: z.string().nullish(),
  shipmentBoxTypeId: z.string().nullish(),
});
const createSchema = z.object({
  physicalInventoryDate: z.string(),
  statusId: z.string().min(1),
  physicalInventoryTypeId: z.string().min(1),
  facilityUrl: z.string().min(1),
  inventoryItemVarianceList: z.array(itemSchema),
  contentList: z.array(z.unknown()).optional(),
});
const modifySchema = z.object({ statusId: z.string().min(1).optional(), contentList: z.array(z.unknown()).optional() });
const READ_ONLY = [
  'physicalInventoryId',
  'physicalInventoryUrl',
  'physicalInventoryTypeId',
  'physicalInventoryDate',
  'facilityUrl',
  'createdDate',
  'lastUpdatedDate',
  'actionUrlCancel',
  'inventoryItemVarianceList',
  'statusIdHistoryList',
] as const;

function answer(ctx: ApiContext, v: VarianceEntity) {
  const api = ctx.store.api;
  return {
    ...varianceView(ctx.profile, v),
    invalidations: [`${api}/inventoryvariancesummary`, `${api}/inventoryitem`, v.physicalInventoryUrl],
  };
}

/**
 * POST /inventoryvariance: FACILITY type, dated at 19:00, at one location, every item on that location.
 * Created PHSCL_INV_COMMITTED, it adds each quantityOnHandVar to stock at once; PHSCL_INV_CREATED waits.
 */
export function createVariance(ctx: ApiContext, body: unknown) {
  const b = parseBody(createSchema, body, 'inventoryvariance');
  if (b.physicalInventoryTypeId !== 'FACILITY') {
    throw badRequest(
      `inventoryvariance: physicalInventoryTypeId must be FACILITY for batch stock changes, not ${b.physicalInventoryTypeId}`,
    );
  }
  if (b.statusId !== PHSCL_INV_COMMITTED && b.statusId !== PHSCL_INV_CREATED) {
    throw badRequest(`inventoryvariance: statusId must be ${PHSCL_INV_COMMITTED} (or ${PHSCL_INV_CREATED}), not ${b.statusId}`);
  }
  const date = parseDateTime(b.physicalInventoryDate);
  if (!date)
    throw badRequest(
      `inventoryvariance: physicalInventoryDate ${b.physicalInventoryDate} is not a date-time of the form YYYY-MM-DDTHH:MM:SS.mmm`,
    );
  if (date.hour !== 19 || date.minute !== 0 || date.second !== 0 || date.ms !== 0) {
    throw badRequest(`inventoryvariance: physicalInventoryDate ${b.physicalInventoryDate} must be at 19:00 (${date.date}T19:00:00.000)`);
  }
  requireLocation(ctx, b.facilityUrl, 'facilityUrl');
  const items: VarianceItemEntity[] = b.inventoryItemVarianceList.map((it, i) => {
    const field = `inventoryItemVarianceList[${i}]`;
    const facilityUrl = it.facilityUrl ?? b.facilityUrl;
    if (facilityUrl !== b.facilityUrl) {
      throw badRequest(
        `${field}.facilityUrl: ${facilityUrl} differs from the variance's facilityUrl ${b.facilityUrl}; one variance covers one location`,
      );
    }
    const product = requireProductPair(ctx, it, field);
    return {
      facilityUrl,
      productUrl: product.productUrl,
      productId: product.productId,
      quantityOnHandVar: it.quantityOnHandVar,
      lotId: it.lotId ?? null,
      normalizedPackingString: it.normalizedPackingString ?? null,
      shipmentBoxTypeId: it.shipmentBoxTypeId ?? null,
    };
  });
  const { store } = ctx;
  const id = store.nextVarianceId();
  const url = store.url('inventoryvariance', id);
  const now = ctx.clock.dateTime();
  const v: VarianceEntity = {
    physicalInventoryId: id,
    physicalInventoryUrl: url,
    physicalInventoryTypeId: 'FACILITY',
    physicalInventoryDate: `${date.date}T19:00:00.000`,
    statusId: b.statusId,
    facilityUrl: b.facilityUrl,
    createdDate: now,
    lastUpdatedDate: now,
    actionUrlCancel: `${url}/cancel`,
    contentList: b.contentList ?? [],
    inventoryItemVarianceList: items,
    statusIdHistoryList: [historyEntry(ctx, b.statusId)],
  };
  store.variances.set(id, v);
  if (v.statusId === PHSCL_INV_COMMITTED) apply(ctx, v);
  store.touch();
  ctx.counters.creates.variance++;
  return answer(ctx, v);
}

/** POST /inventoryvariance/<id>: a PHSCL_INV_CREATED variance can be committed (applied) or cancelled. */
export function modifyVariance(ctx: ApiContext, id: string, body: unknown) {
  const v = requireVariance(ctx, id);
  const b = parseBody(modifySchema, body, `inventoryvariance ${id}`);
  checkReadOnly(varianceView(ctx.profile, v), body as Record<string, unknown>, READ_ONLY, `inventoryvariance ${id}`);
  if (b.contentList && v.statusId !== PHSCL_INV_CREATED) move(ctx, v, v.statusId);
  if (b.statusId !== undefined && b.statusId !== v.statusId) move(ctx, v, b.statusId);
  if (b.contentList) v.contentList = b.contentList;
  v.lastUpdatedDate = ctx.clock.dateTime();
  ctx.store.touch();
  ctx.counters.modifications++;
  return answer(ctx, v);
}

/** POST /inventoryvariance/<id>/cancel: a committed variance is closed and stays as it is (400). */
export function varianceAction(ctx: ApiContext, id: string, action: string) {
  const v = requireVariance(ctx, id);
  if (action !== 'cancel') throw notFound(`No action ${action} on inventory variances`);
  if (v.statusId !== PHSCL_INV_CANCELLED) move(ctx, v, PHSCL_INV_CANCELLED);
  ctx.counters.actions++;
  return answer(ctx, v);
}

function move(ctx: ApiContext, v: VarianceEntity, target: string): void {
  const id = v.physicalInventoryId;
  if (v.statusId === PHSCL_INV_COMMITTED) {
    throw badRequest(
      `Inventory variance ${id} is committed and closed: it cannot change; enter a new variance with the opposite quantities to undo it`,
    );
  }
  if (v.statusId === PHSCL_INV_CANCELLED) throw badRequest(`Inventory variance ${id} is cancelled and cannot change`);
  if (target !== PHSCL_INV_COMMITTED && target !== PHSCL_INV_CANCELLED) {
    throw badRequest(
      `inventoryvariance ${id}: statusId ${target} is not a status it can move to (${PHSCL_INV_COMMITTED}, ${PHSCL_INV_CANCELLED})`,
    );
  }
  v.statusId = target;
  v.lastUpdatedDate = ctx.clock.dateTime();
  v.statusIdHistoryList.push(historyEntry(ctx, target));
  if (target === PHSCL_INV_COMMITTED) apply(ctx, v);
  ctx.store.touch();
}

function apply(ctx: ApiContext, v: VarianceEntity): void {
  for (const it of v.inventoryItemVarianceList) {
    const product = ctx.store.productByUrl(it.productUrl);
    if (product) ctx.store.inventory.add(it.facilityUrl, product, it.quantityOnHandVar, it.lotId, it.normalizedPackingString);
  }
}

function requireVariance(ctx: ApiContext, id: string): VarianceEntity {
  const v = ctx.store.variances.get(id);
  if (!v) throw notFound(`No inventory variance ${id}`);
  return v;
}
