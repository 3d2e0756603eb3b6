import type { z, ZodType } from 'zod';
import type { RecordReferences } from './record-references.js';
import { perStream, type RecordOf, type StreamName } from '../../jobs/streams.js';

/** Records of the upstream feed (shared/upstream-feed.md), checked as they arrive and again when a job starts. */

/** The record schema of each stream. */
export const recordSchemas = perStream((d) => d.schema) as { [S in StreamName]: ZodType<RecordOf<S>> };

/** The field of a record that names it: orderId, countId, productId. */
export const recordKeyField: Record<StreamName, string> = perStream((d) => d.keyField);

/** What a checked record of each stream names of the account. */
const referencesOf = perStream((d) => d.references) as { [S in StreamName]: (record: RecordOf<S>) => RecordReferences };

/** The products and facilities a checked record names, each facility with the kind it must be. */
export function recordReferences<S extends StreamName>(stream: S, record: RecordOf<S>): RecordReferences {
  return (referencesOf[stream] as (r: RecordOf<S>) => RecordReferences)(record);
}

/** The business key of a raw record, when it has a usable one. */
export function recordKey(stream: StreamName, raw: unknown): string | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const v = (raw as Record<string, unknown>)[recordKeyField[stream]];
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

export interface RecordProblem {
  /** Dotted path of the field, e.g. lines.0.quantity. */
  field: string;
  reason: string;
}

/** Checks a raw record; answers the record or every problem as "field: reason". */
export function checkRecord<S extends StreamName>(
  stream: S,
  raw: unknown,
): { ok: true; record: RecordOf<S> } | { ok: false; problems: RecordProblem[] } {
  const parsed = recordSchemas[stream].safeParse(raw);
  if (parsed.success) return { ok: true, record: parsed.data as RecordOf<S> };
  return { ok: false, problems: problemsOf(parsed.error) };
}

/** Every problem of a failed check, as field and reason. */
export function problemsOf(error: z.ZodError): RecordProblem[] {
  return error.issues.map((i) => ({ field: i.path.map(String).join('.') || '(record)', reason: i.message }));
}
