import { z } from 'zod';

/**
 * A test-only fifth kind's record: a stock adjustment of one location (a write-off or found stock), named by its
 * adjustmentId, synced as one inventory variance with the record's deltas.
 */
export const stockAdjustmentSchema = z.object({
  adjustmentId: z.string().trim().min(1, 'must not be empty'),
  adjustedDate: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD'),
  location: z.string().trim().min(1, 'must not be empty'),
  reason: z.enum(['write-off', 'found']),
  items: z
    .array(z.object({ productId: z.string().trim().min(1, 'must not be empty'), quantity: z.number().positive('must be greater than 0') }))
    .min(1, 'must name at least one product'),
});
export type StockAdjustment = z.infer<typeof stockAdjustmentSchema>;

/** The on-hand change of one item: a write-off takes stock away, found stock adds it. */
export function deltaOf(record: StockAdjustment, quantity: number): number {
  return record.reason === 'write-off' ? -quantity : quantity;
}
