import { z } from 'zod';
import { businessDate, MAX_CHARS, name, productId, text } from '../record-fields.js';
import type { StreamDef } from '../streams.js';
import { stockCountReferences } from './stock-count-references.js';

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

/** The `stock-counts` stream (upstream-feed.md): one count of a location per record, named by its countId. */
export const stockCountStream = {
  stream: 'stock-counts',
  keyField: 'countId',
  scheduler: 'stock-sync',
  schema: stockCountRecordSchema,
  references: stockCountReferences,
  // SYNC_COUNTS_SINCE.
  goLive: { field: 'countDate' },
} as const satisfies StreamDef;
