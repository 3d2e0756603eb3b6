import { z } from 'zod';

/** The fields the feed's records share (docs/records.md); each kind's record schema (jobs/<kind>/) is built of them. */

export const naiveDateTime = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?$/, 'must be a local date-time YYYY-MM-DDTHH:MM:SS');
export const businessDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
  .refine(
    (d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d),
    'is not a real calendar date',
  );
/**
 * Longest ids and names, in characters (docs/limits.md, "Caps on input"): orderId is the feed's own rule
 * (docs/records.md); the others are generous for what they name and keep job ids, log lines and service requests
 * of one record bounded.
 */
export const MAX_CHARS = { orderId: 60, countId: 120, productId: 100, shipmentIdUser: 100, name: 255 } as const;

export const text = (max: number) =>
  z.string({ error: 'is required' }).trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);
export const name = text(MAX_CHARS.name);
export const productId = text(MAX_CHARS.productId);
