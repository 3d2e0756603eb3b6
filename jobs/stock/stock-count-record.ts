import { z } from 'zod';
import { businessDate, MAX_CHARS, name, productId, text } from '../record-fields.js';

/** A stock count record of the feed (docs/records.md "stock-counts"): its shape. */

/** The separator of a row split off a count: `{countId}~{productId}` (docs/stock-sync.md, "Rows that wait"). */
export const SPLIT_MARK = '~';

export const stockCountRecordSchema = z
  .object({
    // A row split off a count is named `{countId}~{productId}`: longer than a count's own id may be.
    countId: text(MAX_CHARS.countId + SPLIT_MARK.length + MAX_CHARS.productId),
    location: name,
    countDate: businessDate,
    items: z
      .array(
        z.object({
          productId,
          quantity: z.number({ error: 'must be a number' }).min(0, 'must be 0 or more'),
          /** The CSV file's line of the row (set by `import --format csv`), for errors that name the row. */
          line: z.number().int().positive().optional(),
        }),
        { error: 'is required' },
      )
      .min(1, 'must have at least one item'),
    /** Set on a row split off a count (its countId): it ranks as that count among the counts of its location. */
    splitFrom: text(MAX_CHARS.countId).optional(),
  })
  .superRefine((c, ctx) => {
    if (c.splitFrom === undefined && c.countId.length > MAX_CHARS.countId)
      ctx.addIssue({ code: 'custom', path: ['countId'], message: `must be at most ${MAX_CHARS.countId} characters` });
    if (c.splitFrom !== undefined && !c.countId.startsWith(`${c.splitFrom}${SPLIT_MARK}`))
      ctx.addIssue({ code: 'custom', path: ['splitFrom'], message: `must be the start of countId (${c.countId})` });
  });

export type StockCountRecord = z.infer<typeof stockCountRecordSchema>;
