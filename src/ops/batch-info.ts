import { batchLabel, intakeDataSchema } from '../queue/intake-queue.js';

/** What `jobs list` tells of an import batch (an intake job). */
export interface BatchSummary {
  /** Records in the batch; null when its data is not a readable batch. */
  records: number | null;
  /** First and last line of the file it holds records of; null when unreadable. */
  firstLine: number | null;
  lastLine: number | null;
}

/** What `jobs show` tells of an import batch. */
export interface BatchStory extends BatchSummary {
  /** Job ids of its first few records: the record jobs it becomes. */
  firstRecordIds: string[];
}

/** How many record job ids `jobs show` names for a batch. */
export const FIRST_RECORD_IDS = 5;

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * An intake job's data, read leniently: a batch whose data is damaged is still listed and shown (that is
 * usually why it failed), with what can be read of it.
 */
export function readBatch(data: unknown): { key: string; batch: BatchStory } {
  const parsed = intakeDataSchema.safeParse(data);
  if (parsed.success) {
    const d = parsed.data;
    return {
      key: batchLabel(d),
      batch: {
        records: d.items.length,
        firstLine: d.firstLine,
        lastLine: d.lastLine,
        firstRecordIds: d.items.slice(0, FIRST_RECORD_IDS).map((i) => i.id),
      },
    };
  }
  const raw = (data ?? {}) as { firstLine?: unknown; lastLine?: unknown };
  return {
    key: 'batch with unreadable data',
    batch: { records: null, firstLine: num(raw.firstLine), lastLine: num(raw.lastLine), firstRecordIds: [] },
  };
}

/**
 * A batch as the board shows it: its size, lines and first record job ids rather than up to 4 MiB of record text
 * (the records are shown on their own jobs once the batch is expanded). Data that is not a readable batch is shown as is.
 */
export function batchForBoard(data: unknown): unknown {
  const { batch } = readBatch(data);
  if (batch.records === null) return data;
  const stream = (data as { stream?: unknown }).stream;
  const n = batch.records;
  return { stream, ...batch, items: `${n} record${n === 1 ? '' : 's'}, not shown here: each becomes a ${String(stream)} job` };
}

/** What to do about a failed batch whose records could not be queued (`[TRANSIENT]`: Redis failed while expanding it). */
export const BATCH_HINT =
  "The batch's records did not become jobs; the worker's log line 'intake batch not expanded' says why " +
  '(usually Redis: memory or connection). Fix that, then retry the batch: its records become jobs.';
