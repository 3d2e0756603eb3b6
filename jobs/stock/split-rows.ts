import type { JobContext, JobResult } from '../../src/queue/job-context.js';
import { queueSplitRecords, type SplitRecord } from '../../src/queue/split-records.js';
import type { UnknownRow } from './resolve-count.js';
import { SPLIT_MARK, stockCountRecordSchema, type BadRow, type StockCountRecord } from './stock-count-record.js';

/** A row split off a count to stand alone: its own count `{countId}~{productId}` of that one row. */
export interface SplitRow {
  countId: string;
  productId?: string;
  /** The CSV file's line of the row, when it came from one. */
  line?: number;
}

/** The rows a count splits off: those waiting for their product, and those that fail for good (a bad shape). */
export interface SplitOff {
  waiting: SplitRow[];
  failing: SplitRow[];
}

/** A split row's own count, of that one row as delivered. */
function rowCount(record: StockCountRecord, name: string, row: unknown): StockCountRecord {
  const items = [row] as StockCountRecord['items'];
  const { location, countDate } = record;
  return { countId: `${record.countId}${SPLIT_MARK}${name}`, location, countDate, items, splitFrom: record.countId };
}

/** Each split row as the record queued for it, and as results name it. */
function splitOf(record: StockCountRecord, unknown: readonly UnknownRow[]): Array<SplitRecord & { row: SplitRow; fails: boolean }> {
  const bad = (record.badRows ?? []).map((b: BadRow) => {
    const name = b.productId ?? (b.line === undefined ? `items.${b.i}` : `line${b.line}`);
    return { record: rowCount(record, name, b.row), line: b.line, productId: b.productId, fails: true };
  });
  const waiting = unknown.map(({ item }) => ({
    record: rowCount(record, item.productId, item),
    line: item.line,
    productId: item.productId,
    fails: false,
  }));
  return [...waiting, ...bad].map((s) => ({
    ...s,
    row: {
      countId: s.record.countId,
      ...(s.productId === undefined ? {} : { productId: s.productId }),
      ...(s.line === undefined ? {} : { line: s.line }),
    },
  }));
}

/** The rows a count would split off, as results and previews name them. */
export function splitRows(record: StockCountRecord, unknown: readonly UnknownRow[]): SplitOff {
  const all = splitOf(record, unknown);
  return { waiting: all.filter((s) => !s.fails).map((s) => s.row), failing: all.filter((s) => s.fails).map((s) => s.row) };
}

/** "CNT-1~MUG-ORANGE (line 6), ...": split rows, for a summary. */
export function splitText(rows: readonly SplitRow[]): string {
  return rows.map((r) => `${r.countId}${r.line === undefined ? '' : ` (line ${r.line})`}`).join(', ');
}

/** The summary's words for the rows split off: "1 row waits for its product as ...; 1 row fails alone as ...". */
export function splitSummary({ waiting, failing }: SplitOff, would = false): string {
  const n = (k: number) => (k === 1 ? '1 row' : `${k} rows`);
  const verb = (one: string, many: string, k: number) => (would ? `would ${one}` : k === 1 ? `${one}s` : many);
  return [
    waiting.length
      ? `${n(waiting.length)} ${verb('wait', 'wait', waiting.length)} for a product the service lacks as ${splitText(waiting)}`
      : '',
    failing.length ? `${n(failing.length)} ${verb('fail', 'fail', failing.length)} alone, a bad row, as ${splitText(failing)}` : '',
  ]
    .filter(Boolean)
    .join('; ');
}

/**
 * Queues the rows a count splits off as counts of their own, so that they fail alone while the rest of the count is
 * applied: a row whose product the service lacks (it waits for it, docs/stock-sync.md "Rows that wait"), and a row
 * that does not match its shape (it fails for good). Queued again on every run of the count: their job ids come
 * from their content, so nothing is queued twice.
 */
export async function queueSplitRows(ctx: JobContext, record: StockCountRecord, unknown: readonly UnknownRow[]): Promise<SplitOff> {
  const all = splitOf(record, unknown);
  if (!all.length) return { waiting: [], failing: [] };
  const kind = { stream: ctx.stream, record: { keyField: 'countId', schema: stockCountRecordSchema } };
  await queueSplitRecords(ctx, kind, all);
  const split = splitRows(record, unknown);
  ctx.note(`count ${record.countId}: ${splitSummary(split)}`, { waiting: split.waiting.length, failing: split.failing.length });
  return split;
}

/** A count's result, saying which rows were split off to stand alone. */
export function withSplitRows(result: JobResult, split: SplitOff): JobResult {
  if (!split.waiting.length && !split.failing.length) return result;
  return {
    ...result,
    summary: `${result.summary}; ${splitSummary(split)}`,
    details: {
      ...result.details,
      ...(split.waiting.length ? { splitOff: split.waiting } : {}),
      ...(split.failing.length ? { badRows: split.failing } : {}),
    },
  };
}
