import { z } from 'zod';
import type { OrderReturn, PartLine, ReturnNotice } from '../order-record.js';
import { shopifyLocation } from './shopify-orders-fulfilled.js';

/**
 * Shopify's refunds as returns (docs/transforms.md, "Shopify: the order's life"), for the `shopify-orders` transform:
 * the Refund resource of its REST Admin API, as the `refunds/create` webhook sends it and as an order's `refunds`
 * list holds it. Both ways make the same returns of one refund, so a return told twice is the same return.
 */

export const refundLineSchema = z.object({
  line_item_id: z.number(),
  quantity: z.number(),
  restock_type: z.string().nullish(),
  location_id: z.number().nullish(),
  line_item: z.object({ id: z.number().optional(), sku: z.string().nullish(), title: z.string().nullish() }).nullish(),
});

export const refundSchema = z.object({
  id: z.number(),
  order_id: z.number().nullish(),
  created_at: z.string().nullish(),
  processed_at: z.string().nullish(),
  refund_line_items: z.array(refundLineSchema),
});
export type ShopifyRefund = z.infer<typeof refundSchema>;

/**
 * The location id standing for a Shopify location that is not known (units not shipped yet, units kept by the
 * customer): `shopify:default`, which a MAPPING_FILE alias names (docs/transforms.md).
 */
export const DEFAULT_LOCATION = 'default';

const LOCAL = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})/;

/** A Shopify time (ISO 8601 with the shop's UTC offset) as the naive local date-time it reads as: the shop's clock. */
export function shopLocal(time: string | null | undefined): string | undefined {
  return time ? LOCAL.exec(time)?.[1] : undefined;
}

/** The first problem of a zod parse, as `path: message`. */
export function firstProblem(error: z.ZodError): string {
  const issue = error.issues[0]!;
  return `${issue.path.map(String).join('.') || '(payload)'}: ${issue.message}`;
}

/** Whether a payload has a refund's shape (`refunds/create`): an `order_id` and `refund_line_items`, and no line items of an order. */
export function isRefund(payload: unknown): boolean {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return false;
  return 'order_id' in payload && 'refund_line_items' in payload && !('line_items' in payload);
}

/**
 * Units of a refund line that count as returned, by Shopify's restock types (RefundLineItemRestockType): `return`
 * (shipped units back in stock) and `legacy_restock` (Shopify's older restock, "restocked without being identified as
 * a return or a cancelation": back in stock too) restock; `no_restock` is returned without restock; a `cancel`
 * never shipped.
 */
export function returnedKind(restockType: string | null | undefined): 'restock' | 'kept' | undefined {
  if (restockType === 'return' || restockType === 'legacy_restock') return 'restock';
  if (restockType === 'no_restock') return 'kept';
  return undefined;
}

/**
 * The returns of one refund: its `return` and `legacy_restock` lines as a return that restocks (returnId the refund's id), its `no_restock`
 * lines as one that does not (`{id}-no-restock`). `skuOf` names a line item the refund line does not carry.
 */
export function refundReturns(refund: ShopifyRefund, where: string, skuOf: (lineItemId: number) => string | undefined): OrderReturn[] {
  const parts = { restock: [] as PartLine[], kept: [] as PartLine[] };
  refund.refund_line_items.forEach((rl, i) => {
    const kind = returnedKind(rl.restock_type);
    if (!kind || rl.quantity <= 0) return;
    const at = `${where}.refund_line_items[${i}] (line item ${rl.line_item_id})`;
    const sku = (rl.line_item?.sku ?? skuOf(rl.line_item_id) ?? '').trim();
    if (!sku) throw new Error(`${at} has no sku: its product cannot be named`);
    if (kind === 'restock' && rl.location_id == null)
      throw new Error(`${at} is a return without location_id: where its units go back is unknown`);
    // A line kept by the customer moves no stock; its location only names the line.
    const location = shopifyLocation(rl.location_id ?? DEFAULT_LOCATION);
    parts[kind].push({ productId: sku, quantity: rl.quantity, location });
  });
  const returnedAt = shopLocal(refund.created_at ?? refund.processed_at);
  const made = (returnId: string, restock: boolean, lines: PartLine[]): OrderReturn => ({
    returnId,
    restock,
    ...(returnedAt ? { returnedAt } : {}),
    lines,
  });
  const out: OrderReturn[] = [];
  if (parts.restock.length) out.push(made(String(refund.id), true, parts.restock));
  if (parts.kept.length) out.push(made(`${refund.id}-no-restock`, false, parts.kept));
  return out;
}

/** The `refunds/create` payload as a return notice of its order; null when it returns nothing (a refund of money only, or a cancel). */
export function shopifyReturnNotice(payload: unknown): ReturnNotice | null {
  const parsed = refundSchema.safeParse(payload);
  if (!parsed.success) throw new Error(`not a Shopify refund: ${firstProblem(parsed.error)}`);
  const refund = parsed.data;
  if (refund.order_id == null) throw new Error(`refund ${refund.id} has no order_id: its order is unknown`);
  const returns = refundReturns(refund, 'refund', () => undefined);
  if (!returns.length) return null;
  const updatedAt = shopLocal(refund.created_at ?? refund.processed_at);
  return { orderId: String(refund.order_id), ...(updatedAt ? { updatedAt } : {}), returns };
}
