import { defaults } from '../../config/defaults.js';
import { tooLarge } from '../records/unreadable-record.js';
import { csvColumns, type CsvColumn, type CsvLayout, type CsvRead } from '../records/csv-layout.js';
import { messageOf } from '../errors/message-of.js';
import type { NdjsonEntry } from './ndjson.js';

const MAX = defaults.csvQuoteChars;
/** A cell as quoted in an error: JSON, cut at defaults.csvQuoteChars. */
const quote = (cell: string) => JSON.stringify(cell.length > MAX ? `${cell.slice(0, MAX)}…` : cell);

/** The record being gathered: the rows of one key, in a row. */
interface Group {
  key: string;
  line: number;
  /** The head's cells as on its first row, to compare the next rows' with. */
  headCells: string[];
  record: Record<string, unknown>;
  items: unknown[];
  /** Per item: its line and its row's extra cells (for the layout's shape hook). */
  rows: { line: number; cells: Record<string, unknown> }[];
  chars: number;
  error?: string;
  /** Rows that fail alone (the layout's rowsAlone): their line, their key and why. */
  badRows: { line: number; key: string; error: string }[];
}

/**
 * Gathers the rows of a CSV file into records by a kind's layout (src/records/csv-layout.ts): consecutive rows of
 * one key are one record, complete when the key changes, so memory holds one record at a time. A row that breaks
 * the record (a head that differs from its first row's, a number that is not one, an empty required cell, a row
 * that cannot be read among its rows) makes the whole record an error naming the file's line and the column; under
 * the layout's `rowsAlone`, a row with a bad cell fails alone and the record is made of the others.
 */
export class CsvGrouper {
  private group: Group | undefined;
  /** Lines of rows that could not be read since the last readable one: they break the record they sit in. */
  private unreadable: number[] = [];
  /** The record's columns: the layout's head and its extra head. */
  private readonly head: readonly CsvColumn[];

  constructor(
    private readonly layout: CsvLayout,
    private readonly keyField: string,
    /** Column name → its index in a row (from the header). */
    private readonly columns: ReadonlyMap<string, number>,
    private readonly maxChars: number,
  ) {
    this.head = csvColumns(layout).head;
  }

  /** A row that could not be read (its error entry is the caller's): remembered against the record around it. */
  unreadableRow(line: number): void {
    this.unreadable.push(line);
  }

  /** One row; a record it completes goes to `out`. */
  row(line: number, cells: string[], out: NdjsonEntry[]): void {
    const key = this.cell(cells, this.keyField).trim();
    if (!key) {
      // Its record is unknown: it fails alone, and the record around it (if any) with it.
      this.unreadable.push(line);
      out.push(errorEntry(line, `line ${line}, column ${this.keyField}: is empty`, undefined));
      return;
    }
    if (this.group?.key !== key) {
      // Rows that could not be read between two records stand alone.
      this.unreadable = [];
      this.flush(out);
      this.group = this.start(key, line, cells);
    } else this.sameHead(this.group, line, cells);
    const g = this.group;
    for (const l of this.unreadable) g.error ??= `line ${l}, among the rows of ${key}: is a bad row (see its own error)`;
    this.unreadable = [];
    g.chars += cells.reduce((n, c) => n + c.length + 1, 0);
    if (g.chars > this.maxChars) g.error ??= `${tooLarge(g.chars, this.maxChars)} (rows from line ${g.line})`;
    if (g.error) return;
    const item: Record<string, unknown> = {};
    const extra: Record<string, unknown> = {};
    const bad = this.fill(item, this.layout.row, line, cells) ?? this.fill(extra, this.layout.extra?.row ?? [], line, cells);
    const alone = this.layout.rowsAlone;
    if (bad && alone) {
      const rowKey = this.cell(cells, alone.rowKey).trim() || `line${line}`;
      return void g.badRows.push({ line, key: `${key}~${rowKey}`, error: bad });
    }
    g.error = bad;
    if (alone) item[alone.line] = line;
    g.items.push(item);
    g.rows.push({ line, cells: extra });
  }

  /** The last record, at the end of the file. */
  end(out: NdjsonEntry[]): void {
    this.flush(out);
  }

  private cell(cells: string[], name: string): string {
    const i = this.columns.get(name);
    return i === undefined ? '' : (cells[i] ?? '');
  }

  private start(key: string, line: number, cells: string[]): Group {
    const record: Record<string, unknown> = {};
    const headCells = this.head.map((c) => this.cell(cells, c.name));
    const g: Group = { key, line, headCells, record, items: [], rows: [], chars: 0, badRows: [] };
    g.error = this.fill(record, this.head, line, cells);
    return g;
  }

  private sameHead(g: Group, line: number, cells: string[]): void {
    this.head.forEach((c, i) => {
      const cell = this.cell(cells, c.name);
      const first = g.headCells[i]!;
      if (cell === first) return;
      const where = `line ${line}, column ${c.name}`;
      g.error ??= `${where}: ${quote(cell)} differs from ${quote(first)} on line ${g.line}, the first row of ${g.key}`;
    });
  }

  /** Sets the columns' values on `into`; the first problem, naming the line and the column. */
  private fill(into: Record<string, unknown>, columns: readonly CsvColumn[], line: number, cells: string[]): string | undefined {
    for (const c of columns) {
      const cell = this.cell(cells, c.name).trim();
      if (!cell) {
        if (c.optional) continue;
        return `line ${line}, column ${c.name}: is empty`;
      }
      if (c.type !== 'number') {
        into[c.name] = cell;
        continue;
      }
      const n = Number(cell);
      if (!Number.isFinite(n)) return `line ${line}, column ${c.name}: ${quote(cell)} is not a number`;
      into[c.name] = n;
    }
    return undefined;
  }

  private flush(out: NdjsonEntry[]): void {
    const g = this.group;
    this.group = undefined;
    if (!g) return;
    if (g.error) return void out.push(errorEntry(g.line, g.error, g.key));
    // A record of bad rows only fails as itself; beside good rows, each bad one fails alone under its own key.
    const [firstBad] = g.badRows;
    if (firstBad && !g.items.length) return void out.push(errorEntry(g.line, firstBad.error, g.key));
    for (const b of g.badRows) out.push(errorEntry(b.line, b.error, b.key));
    let record: Record<string, unknown> = { ...g.record, [this.layout.rows]: g.items };
    const shape = this.layout.extra?.shape;
    if (shape) {
      const read: CsvRead = { record, rows: g.rows };
      try {
        record = shape(read);
      } catch (err) {
        return void out.push(errorEntry(g.line, messageOf(err), g.key));
      }
    }
    out.push({ line: g.line, value: record, text: JSON.stringify(record) });
  }
}

/** A record (or row) that cannot be made: it fails alone, named by its key when known and its first line. */
function errorEntry(line: number, error: string, key: string | undefined): NdjsonEntry {
  const text = key === undefined ? `line ${line}` : key;
  return { line, error, text, head: text, ...(key === undefined ? {} : { key }) };
}
