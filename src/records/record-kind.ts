import type { ZodType } from 'zod';
import type { CsvLayout } from './csv-layout.js';
import type { RecordReferences } from './record-references.js';
import type { StreamName } from './stream-name.js';
import type { TransformFn } from './transform-fn.js';

/** What a kind says of its records (its `record`, RecordKind's part): what the feed, the checks, `check` and imports read. */
export interface RecordPart<R = any> {
  /** The record field that names a record: its business key. */
  keyField: string;
  /** The record's shape as the feed delivers it, checked as it arrives and when its job starts. */
  schema: ZodType<R>;
  /** The products and facilities a checked record names (for `check`). */
  references: (record: NoInfer<R>) => RecordReferences;
  /** Built-in transforms from an upstream's own shape, by the name TRANSFORMS sets them with. None: only modules. */
  transforms?: Readonly<Record<string, TransformFn>>;
  /** How the stream's records read as CSV rows (`import <stream> file.csv`). None: CSV only through a transform. */
  csv?: CsvLayout;
}

/** A kind as the records' helpers see it (src/records' slice of it): its stream and its records. */
export interface RecordKind<R = any> {
  /** The feed's stream and the BullMQ queue of the same name (its job ids' prefix too). */
  stream: StreamName;
  record: RecordPart<R>;
}

/** What naming a record needs of its kind. */
export interface KeyedKind {
  stream: StreamName;
  record: Pick<RecordPart, 'keyField'>;
}

/** What checking and naming a record needs of its kind. */
export interface CheckedKind {
  stream: StreamName;
  record: Pick<RecordPart, 'keyField' | 'schema'>;
}
