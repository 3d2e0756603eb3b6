import type { Readable } from 'node:stream';
import { defaults } from '../../config/defaults.js';
import { csvColumns, type CsvLayout } from '../records/csv-layout.js';
import { CsvGrouper } from './csv-group.js';
import { readCsvChunks, type CsvRow } from './csv-rows.js';
import type { NdjsonEntry } from './ndjson.js';

/** A CSV file that cannot be imported at all (no header, or one without a column the layout needs): nothing is queued. */
export class CsvHeaderError extends Error {
  readonly code = 'CSV_HEADER';
  constructor(message: string) {
    super(message);
    this.name = 'CsvHeaderError';
  }
}

export interface ReadCsvRecordsOptions {
  /** What `-` reads. Default process.stdin. */
  stdin?: Readable;
  /** The largest record (the characters of its rows). Default defaults.maxRecordBytes. */
  maxRecordChars?: number;
}

/** What the file's rows become: records by a kind's layout, or each row as an object (for a transform). */
export type CsvMode = { layout: CsvLayout; keyField: string } | { rows: true };

/** The header's column → index; throws a CsvHeaderError for no header, a repeated column, or a column the layout needs. */
function columnsOf(header: CsvRow | undefined, mode: CsvMode): Map<string, number> {
  if (!header) throw new CsvHeaderError('line 1: the file is empty; a CSV file starts with a header row naming its columns');
  if ('error' in header) throw new CsvHeaderError(`line ${header.line}: the header row cannot be read: ${header.error}`);
  const columns = new Map<string, number>();
  for (const [i, raw] of header.fields.entries()) {
    const name = raw.trim();
    if (columns.has(name)) throw new CsvHeaderError(`line ${header.line}: column ${name} is named twice in the header`);
    columns.set(name, i);
  }
  if ('layout' in mode) {
    const every = csvColumns(mode.layout);
    const all = [...every.head, ...every.row];
    const missing = all.filter((c) => !c.optional && !columns.has(c.name)).map((c) => c.name);
    // The plain layout's columns, and any extra one that is required: a plain file needs no more.
    const listed = [...mode.layout.head, ...mode.layout.row];
    listed.push(...all.filter((c) => !c.optional && !listed.includes(c)));
    if (missing.length)
      throw new CsvHeaderError(
        `line ${header.line}: the header lacks column${missing.length === 1 ? '' : 's'} ${missing.join(', ')} ` +
          `(columns: ${listed.map((c) => c.name).join(',')})`,
      );
  }
  return columns;
}

/** A row that cannot be read, or has another number of fields than the header: an entry that fails alone. */
function badRow(row: CsvRow, width: number): NdjsonEntry | undefined {
  const error = 'error' in row ? row.error : row.fields.length !== width ? `has ${row.fields.length} fields; the header has ${width}` : '';
  if (!error) return undefined;
  const text = `line ${row.line}`;
  return { line: row.line, error, text, head: text };
}

/** A data row as an object keyed by the header's column names. */
function rowObject(columns: ReadonlyMap<string, number>, fields: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, i] of columns) out[name] = fields[i] ?? '';
  return out;
}

/**
 * Streams a CSV file (a path, `-` for stdin, or a Readable) as entries in the NDJSON reader's form, the entries of
 * each chunk read together: records gathered by a kind's layout, or rows as objects. A row that cannot be read,
 * or whose record cannot be made, is an error entry naming its line (and the column); the rest go on. A file whose
 * header cannot be used throws a CsvHeaderError before any entry.
 */
export async function* readCsvRecords(
  source: string | Readable,
  mode: CsvMode,
  opts: ReadCsvRecordsOptions = {},
): AsyncGenerator<NdjsonEntry[]> {
  const maxChars = opts.maxRecordChars ?? defaults.maxRecordBytes;
  let columns: Map<string, number> | undefined;
  let grouper: CsvGrouper | undefined;
  for await (const rows of readCsvChunks(source, { stdin: opts.stdin, maxRowChars: maxChars })) {
    const out: NdjsonEntry[] = [];
    for (const row of rows) {
      if (!columns) {
        columns = columnsOf(row, mode);
        if ('layout' in mode) grouper = new CsvGrouper(mode.layout, mode.keyField, columns, maxChars);
        continue;
      }
      const bad = badRow(row, columns.size);
      if (bad) {
        grouper?.unreadableRow(row.line);
        out.push(bad);
      } else if (!('fields' in row)) continue;
      else if (grouper) grouper.row(row.line, row.fields, out);
      else {
        const value = rowObject(columns, row.fields);
        out.push({ line: row.line, value, text: JSON.stringify(value) });
      }
    }
    yield out;
  }
  if (!columns) columnsOf(undefined, mode);
  const last: NdjsonEntry[] = [];
  grouper?.end(last);
  if (last.length) yield last;
}
