import { z } from 'zod';
import { businessDate, MAX_CHARS, name, productId, text } from '../record-fields.js';

/** A stock count record of the feed (docs/records.md "stock-counts"): its shape. */

export const stockCountRecordSchema = z.object({
  countId: text(MAX_CHARS.countId),
  location: name,
  countDate: businessDate,
  items: z
    .array(
      z.object({
        productId,
        quantity: z.number({ error: 'must be a number' }).min(0, 'must be 0 or more'),
      }),
      { error: 'is required' },
    )
    .min(1, 'must have at least one item'),
});

export type StockCountRecord = z.infer<typeof stockCountRecordSchema>;
