import { z } from 'zod';
import { businessDate, MAX_CHARS, name, productId, text } from '../record-fields.js';

/** A stock count record of the feed (docs/records.md "stock-counts"): its shape. */

/** The separator of a row split off a count: `{countId}~{productId}` (docs/stock-sync.md, "Rows that wait"). */
export const SPLIT_MARK = '~';

/** One row of a count: a product and its counted quantity. */
const countRowSchema = z.object({
  productId,
  quantity: z.number({ error: 'must be a number' }).min(0, 'must be 0 or more'),
  /** The CSV file's line of the row (set by `import --format csv`), for errors that name the row. */
  line: z.number().int().positive().optional(),
});
export type CountRow = z.infer<typeof countRowSchema>;

/** A row that does not match its shape: it fails alone, split off the count (docs/stock-sync.md, "Rows that wait"). */
export interface BadRow {
  /** Its index in the record's items. */
  i: number;
  /** The row as delivered. */
  row: unknown;
  /** Its productId when it has a usable one. */
  productId?: string;
  line?: number;
}

const countShape = z.object({
  // A row split off a count is named `{countId}~{productId}`: longer than a count's own id may be.
  countId: text(MAX_CHARS.countId + SPLIT_MARK.length + MAX_CHARS.productId),
  location: name,
  countDate: businessDate,
  items: z.array(z.unknown(), { error: 'is required' }).min(1, 'must have at least one item'),
  /** Set on a row split off a count (its countId): it ranks as that count among the counts of its location. */
  splitFrom: text(MAX_CHARS.countId).optional(),
});

/** What a bad row is called: its productId and line, when it has them. */
function badRow(row: unknown, i: number): BadRow {
  const r = (typeof row === 'object' && row !== null ? row : {}) as { productId?: unknown; line?: unknown };
  const id = productId.safeParse(r.productId);
  const line = typeof r.line === 'number' && Number.isInteger(r.line) && r.line > 0 ? r.line : undefined;
  return { i, row, ...(id.success ? { productId: id.data } : {}), ...(line === undefined ? {} : { line }) };
}

/**
 * A count: its good rows in `items`, and rows that do not match their shape in `badRows` (absent when none), which
 * the job splits off to fail alone. A count with no good row is a bad record naming its rows' problems.
 */
export const stockCountRecordSchema = countShape
  .superRefine((c, ctx) => {
    if (c.splitFrom === undefined && c.countId.length > MAX_CHARS.countId)
      ctx.addIssue({ code: 'custom', path: ['countId'], message: `must be at most ${MAX_CHARS.countId} characters` });
    if (c.splitFrom !== undefined && !c.countId.startsWith(`${c.splitFrom}${SPLIT_MARK}`))
      ctx.addIssue({ code: 'custom', path: ['splitFrom'], message: `must be the start of countId (${c.countId})` });
  })
  .transform((c, ctx) => {
    const items: CountRow[] = [];
    const bad: Array<{ row: BadRow; issues: z.core.$ZodIssue[] }> = [];
    c.items.forEach((row, i) => {
      const r = countRowSchema.safeParse(row);
      if (r.success) items.push(r.data);
      else bad.push({ row: badRow(row, i), issues: r.error.issues });
    });
    if (!items.length) {
      for (const { row, issues } of bad)
        for (const issue of issues) {
          const at = row.line === undefined ? '' : ` (line ${row.line})`;
          ctx.addIssue({ code: 'custom', path: ['items', row.i, ...issue.path], message: `${issue.message}${at}` });
        }
      return z.NEVER;
    }
    // In the order the record's hash was always taken in (count-version-hash.ts): countId, location, countDate, items.
    return {
      countId: c.countId,
      location: c.location,
      countDate: c.countDate,
      items,
      ...(c.splitFrom === undefined ? {} : { splitFrom: c.splitFrom }),
      ...(bad.length ? { badRows: bad.map((b) => b.row) } : {}),
    };
  });

export type StockCountRecord = z.infer<typeof stockCountRecordSchema>;
