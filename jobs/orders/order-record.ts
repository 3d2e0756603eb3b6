import { z } from 'zod';
import { MAX_CHARS, name, naiveDateTime, productId, text } from '../record-fields.js';

/**
 * An order record of the feed (docs/records.md "orders"): its shape, checked as it arrives and when its job starts.
 * A record is a snapshot of the order as the upstream sees it now; `status`, `updatedAt`, `fulfillments` and
 * `returns` tell its life (docs/orders.md "The order's life"). A record without them is a fulfilled order with one
 * shipment of all its lines, as it always was.
 */

const quantity = z.number({ error: 'must be a number' }).positive('must be greater than 0');

export const orderLineSchema = z.object({
  productId,
  quantity,
  unitPrice: z.number({ error: 'must be a number' }).min(0, 'must be 0 or more'),
  location: name,
});

/** A line of a fulfillment or a return: units of a product at a location (no price). */
export const partLineSchema = z.object({ productId, quantity, location: name });

export const fulfillmentSchema = z.object({
  // It names the fulfillment's shipment (shipmentIdUser), so it has the same cap.
  fulfillmentId: text(MAX_CHARS.shipmentIdUser),
  lines: z.array(partLineSchema, { error: 'is required' }).min(1, 'must have at least one line'),
});

export const returnSchema = z.object({
  returnId: text(MAX_CHARS.shipmentIdUser),
  restock: z.boolean({ error: 'must be true or false' }),
  returnedAt: naiveDateTime.optional(),
  lines: z.array(partLineSchema, { error: 'is required' }).min(1, 'must have at least one line'),
});

export const ORDER_STATUSES = ['open', 'fulfilled', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

const shape = z.object({
  // The orderId names the order's URL (/api/order/<orderId>): "." and ".." would name another one.
  orderId: text(MAX_CHARS.orderId).refine((id) => id !== '.' && id !== '..', 'must not be "." or ".."'),
  orderDate: naiveDateTime.optional(),
  origin: name,
  lines: z.array(orderLineSchema, { error: 'is required' }).min(1, 'must have at least one line'),
  shipmentIdUser: text(MAX_CHARS.shipmentIdUser).optional(),
  status: z.enum(ORDER_STATUSES, { error: `must be one of ${ORDER_STATUSES.join(', ')}` }).optional(),
  updatedAt: naiveDateTime.optional(),
  fulfillments: z.array(fulfillmentSchema, { error: 'must be a list' }).optional(),
  returns: z.array(returnSchema, { error: 'must be a list' }).optional(),
});

type Shape = z.infer<typeof shape>;

/** Units per "productId at location", summed over lines. */
export function unitsByPlace(lines: readonly z.infer<typeof partLineSchema>[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const l of lines) {
    const k = `${l.productId} at ${l.location}`;
    out.set(k, Math.round(((out.get(k) ?? 0) + l.quantity) * 1e6) / 1e6);
  }
  return out;
}

/** Units shipped per "productId at location" over every fulfillment of the record. */
export function shippedByPlace(record: Pick<Shape, 'fulfillments'>): Map<string, number> {
  return unitsByPlace((record.fulfillments ?? []).flatMap((f) => f.lines));
}

function duplicateIds(ids: string[]): string[] {
  const seen = new Set<string>();
  return [...new Set(ids.filter((id) => seen.size === seen.add(id).size))];
}

/** The rules between fields: ids unique, fulfillments within the lines (exactly the lines when fulfilled). */
function checkLife(r: Shape, ctx: z.RefinementCtx): void {
  const issue = (path: (string | number)[], message: string) => ctx.addIssue({ code: 'custom', path, message });
  if (r.fulfillments && r.shipmentIdUser !== undefined)
    issue(['shipmentIdUser'], 'must not be given with fulfillments (each fulfillmentId names its shipment)');
  for (const id of duplicateIds((r.fulfillments ?? []).map((f) => f.fulfillmentId)))
    issue(['fulfillments'], `fulfillmentId "${id}" is given more than once`);
  for (const id of duplicateIds((r.returns ?? []).map((x) => x.returnId))) issue(['returns'], `returnId "${id}" is given more than once`);
  if (!r.fulfillments) return;
  const ordered = unitsByPlace(r.lines);
  const shipped = shippedByPlace(r);
  const fulfilled = (r.status ?? 'fulfilled') === 'fulfilled';
  for (const place of new Set([...ordered.keys(), ...shipped.keys()])) {
    const o = ordered.get(place) ?? 0;
    const s = shipped.get(place) ?? 0;
    if (s > o) issue(['fulfillments'], `ship ${s} of ${place}, more than the lines' ${o}`);
    else if (fulfilled && s < o) issue(['fulfillments'], `a fulfilled order's fulfillments ship ${s} of ${place}, not the lines' ${o}`);
  }
}

export const fullOrderSchema = shape.superRefine(checkLife);

/**
 * A return notice: returns of an order told on their own (a refund webhook carries the refund, not the order), with
 * neither lines nor status. It restocks its returns and changes nothing else of the order.
 */
export const returnNoticeSchema = z.strictObject({
  orderId: shape.shape.orderId,
  updatedAt: naiveDateTime.optional(),
  returns: z.array(returnSchema, { error: 'is required' }).min(1, 'must have at least one return'),
});
export type ReturnNotice = z.infer<typeof returnNoticeSchema>;

/** A record without lines and origin but with returns is a return notice; any other is checked as a whole order. */
function looksLikeNotice(raw: unknown): boolean {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return false;
  return !('lines' in raw) && !('origin' in raw) && 'returns' in raw;
}

/** The orders stream's records: a snapshot of the order, or a return notice. */
export const orderRecordSchema = z.unknown().transform((raw, ctx): OrderRecord | ReturnNotice => {
  const parsed = (looksLikeNotice(raw) ? returnNoticeSchema : fullOrderSchema).safeParse(raw);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, code: 'custom', message: issue.message, path: issue.path });
  return z.NEVER;
});

export type OrderRecord = z.infer<typeof fullOrderSchema>;
export type OrderInput = OrderRecord | ReturnNotice;

export function isReturnNotice(record: OrderInput): record is ReturnNotice {
  return !('lines' in record);
}
export type OrderLine = z.infer<typeof orderLineSchema>;
export type PartLine = z.infer<typeof partLineSchema>;
export type Fulfillment = z.infer<typeof fulfillmentSchema>;
export type OrderReturn = z.infer<typeof returnSchema>;

/** Whether a record tells more of the order's life than a plain fulfilled order (status, fulfillments or returns). */
export function tellsLife(record: OrderRecord): boolean {
  return (
    (record.status !== undefined && record.status !== 'fulfilled') || record.fulfillments !== undefined || record.returns !== undefined
  );
}

/**
 * A plain record: the whole order as it was sold, fulfilled in one shipment of all its lines (no life told). The one
 * machine takes it as the snapshot it always meant; it is compared with the service, never edited into it.
 */
export function isPlain(record: OrderInput): record is OrderRecord {
  return !isReturnNotice(record) && !tellsLife(record);
}
