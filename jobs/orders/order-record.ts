import { z } from 'zod';
import { MAX_CHARS, name, naiveDateTime, productId, text } from '../record-fields.js';

/** An order record of the feed (upstream-feed.md "orders"): its shape, checked as it arrives and when its job starts. */

export const orderLineSchema = z.object({
  productId,
  quantity: z.number({ error: 'must be a number' }).positive('must be greater than 0'),
  unitPrice: z.number({ error: 'must be a number' }).min(0, 'must be 0 or more'),
  location: name,
});

export const orderRecordSchema = z.object({
  // The orderId names the order's URL (/api/order/<orderId>): "." and ".." would name another one.
  orderId: text(MAX_CHARS.orderId).refine((id) => id !== '.' && id !== '..', 'must not be "." or ".."'),
  orderDate: naiveDateTime.optional(),
  origin: name,
  lines: z.array(orderLineSchema, { error: 'is required' }).min(1, 'must have at least one line'),
  shipmentIdUser: text(MAX_CHARS.shipmentIdUser).optional(),
});

export type OrderRecord = z.infer<typeof orderRecordSchema>;
export type OrderLine = z.infer<typeof orderLineSchema>;
