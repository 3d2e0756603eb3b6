import type { z, ZodType } from 'zod';
import { zodProblems } from '../errors/zod-problems.js';
import type { RecordReferences } from './record-references.js';
import type { StreamName } from './stream-def.js';

/** Records of the upstream feed (docs/records.md), checked as they arrive and again when a job starts. */

// The kind's declaration (src/kinds/kind.ts) is made of these parts; they are spelled here, below it, so that the
// records' helpers do not import what imports them.
/** What naming a record needs of its stream (a kind's `stream` and `keyField`). */
export interface KeyedStream {
  stream: StreamName;
  keyField: string;
}
/** What checking a record needs of its stream (and a kind's `schema`). */
export interface RecordStream extends KeyedStream {
  schema: ZodType;
}

/** The definition of a stream of the list, or undefined when the list has none of that name. */
export function findDef<D extends { stream: StreamName }>(defs: readonly D[], stream: string): D | undefined {
  return defs.find((d) => d.stream === stream);
}

/** The definition of a stream of the list; throws for a name the list does not have (a caller's mistake). */
export function defOf<D extends { stream: StreamName }>(defs: readonly D[], stream: string): D {
  const def = findDef(defs, stream);
  if (!def) throw new Error(`no stream ${stream}; streams: ${defs.map((d) => d.stream).join(', ')}`);
  return def;
}

/** The stream names of a list, in its order. */
export function streamNames(defs: readonly { stream: StreamName }[]): StreamName[] {
  return defs.map((d) => d.stream);
}

/** The products and facilities a checked record names, each facility with the kind it must be. */
export function recordReferences(def: { references: (record: never) => RecordReferences }, record: unknown): RecordReferences {
  return (def.references as (r: unknown) => RecordReferences)(record);
}

/** The business key of a raw record, when it has a usable one. */
export function recordKey(def: KeyedStream, raw: unknown): string | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const v = (raw as Record<string, unknown>)[def.keyField];
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

export interface RecordProblem {
  /** Dotted path of the field, e.g. lines.0.quantity. */
  field: string;
  reason: string;
}

/** Checks a raw record; answers the record or every problem as "field: reason". */
export function checkRecord(
  def: Pick<RecordStream, 'schema'>,
  raw: unknown,
): { ok: true; record: unknown } | { ok: false; problems: RecordProblem[] } {
  const parsed = def.schema.safeParse(raw);
  if (parsed.success) return { ok: true, record: parsed.data };
  return { ok: false, problems: problemsOf(parsed.error) };
}

/** Every problem of a failed check, as field and reason. */
export function problemsOf(error: z.ZodError): RecordProblem[] {
  return zodProblems(error.issues, { whole: '(record)' });
}
