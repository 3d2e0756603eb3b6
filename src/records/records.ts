import type { z, ZodType } from 'zod';
import { zodProblems } from '../errors/zod-problems.js';
import type { KeyedKind, RecordPart } from './record-kind.js';
import type { RecordReferences } from './record-references.js';
import type { StreamName } from './stream-name.js';

/** Records of the upstream feed (docs/records.md), checked as they arrive and again when a job starts. */

/** The kind of a stream of the list, or undefined when the list has none of that name. */
export function findKind<K extends { stream: StreamName }>(kinds: readonly K[], stream: string): K | undefined {
  return kinds.find((k) => k.stream === stream);
}

/** The kind of a stream of the list; throws for a name the list does not have (a caller's mistake). */
export function kindOf<K extends { stream: StreamName }>(kinds: readonly K[], stream: string): K {
  const kind = findKind(kinds, stream);
  if (!kind) throw new Error(`no stream ${stream}; streams: ${kinds.map((k) => k.stream).join(', ')}`);
  return kind;
}

/** The stream names of a list, in its order. */
export function streamNames(kinds: readonly { stream: StreamName }[]): StreamName[] {
  return kinds.map((k) => k.stream);
}

/** The products and facilities a checked record names, each facility with the kind it must be. */
export function recordReferences(kind: { record: Pick<RecordPart, 'references'> }, record: unknown): RecordReferences {
  return kind.record.references(record);
}

/** The business key of a raw record, when it has a usable one. */
export function recordKey(kind: KeyedKind, raw: unknown): string | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const v = (raw as Record<string, unknown>)[kind.record.keyField];
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

export interface RecordProblem {
  /** Dotted path of the field, e.g. lines.0.quantity. */
  field: string;
  reason: string;
}

/** Checks a raw record; answers the record or every problem as "field: reason". */
export function checkRecord(
  kind: { record: Pick<RecordPart, 'schema'> },
  raw: unknown,
): { ok: true; record: unknown } | { ok: false; problems: RecordProblem[] } {
  const parsed = kind.record.schema.safeParse(raw);
  if (parsed.success) return { ok: true, record: parsed.data };
  return { ok: false, problems: problemsOf(parsed.error) };
}

/** Every problem of a failed check, as field and reason. */
export function problemsOf(error: z.ZodError): RecordProblem[] {
  return zodProblems(error.issues, { whole: '(record)' });
}
