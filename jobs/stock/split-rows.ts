import type { JobContext, JobResult } from '../../src/queue/job-context.js';
import { queueSplitRecords } from '../../src/queue/split-records.js';
import type { UnknownRow } from './resolve-count.js';
import { SPLIT_MARK, stockCountRecordSchema, type StockCountRecord } from './stock-count-record.js';

/** A row of a count split off it to wait for its product: its own count `{countId}~{productId}` of that one row. */
export interface SplitRow {
  countId: string;
  productId: string;
  /** The CSV file's line of the row, when it came from one. */
  line?: number;
}

/** The counts of one row each that the rows whose product the service lacks become (docs/stock-sync.md, "Rows that wait"). */
export function splitRecords(record: StockCountRecord, unknown: readonly UnknownRow[]): StockCountRecord[] {
  return unknown.map(({ item }) => ({
    countId: `${record.countId}${SPLIT_MARK}${item.productId}`,
    location: record.location,
    countDate: record.countDate,
    items: [item],
    splitFrom: record.countId,
  }));
}

/** What the rows split off are, as results and previews name them. */
export function splitRows(record: StockCountRecord, unknown: readonly UnknownRow[]): SplitRow[] {
  return splitRecords(record, unknown).map((r) => {
    const { productId, line } = r.items[0]!;
    return { countId: r.countId, productId, ...(line === undefined ? {} : { line }) };
  });
}

/** "CNT-1~MUG-ORANGE (line 6), ...": the rows split off, for a summary. */
export function splitText(rows: readonly SplitRow[]): string {
  return rows.map((r) => `${r.countId}${r.line === undefined ? '' : ` (line ${r.line})`}`).join(', ');
}

/**
 * Queues the rows whose product the service lacks as counts of their own, which fail (wait) for the product alone
 * while the rest of the count is applied. Queued again on every run of the count: their job ids come from their
 * content, so nothing is queued twice.
 */
export async function queueSplitRows(ctx: JobContext, record: StockCountRecord, unknown: readonly UnknownRow[]): Promise<SplitRow[]> {
  if (!unknown.length) return [];
  const kind = { stream: ctx.stream, record: { keyField: 'countId', schema: stockCountRecordSchema } };
  const records = splitRecords(record, unknown);
  await queueSplitRecords(
    ctx,
    kind,
    records.map((r) => ({ record: r, line: r.items[0]!.line })),
  );
  const rows = splitRows(record, unknown);
  ctx.note(`count ${record.countId}: ${rows.length} row(s) name a product the service lacks; each waits as its own count`, {
    split: rows,
  });
  return rows;
}

/** A count's result, saying which rows were split off to wait for their product. */
export function withSplitRows(result: JobResult, rows: readonly SplitRow[]): JobResult {
  if (!rows.length) return result;
  const waits = rows.length === 1 ? '1 row waits for its product' : `${rows.length} rows wait for their products`;
  return {
    ...result,
    summary: `${result.summary}; ${waits} as ${splitText(rows)}`,
    details: { ...result.details, splitOff: rows },
  };
}
