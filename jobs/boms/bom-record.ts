import { z } from 'zod';
import { productId } from '../record-fields.js';

/** A bill of materials record of the feed (docs/records.md "boms"): its shape. */

export const bomRecordSchema = z.object({
  productId,
  components: z
    .array(z.object({ productId, quantity: z.number({ error: 'must be a number' }).positive('must be greater than 0') }), {
      error: 'is required',
    })
    .min(1, 'must have at least one component'),
});

export type BomRecord = z.infer<typeof bomRecordSchema>;
