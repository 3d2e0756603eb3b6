/**
 * How a kind's records read as CSV rows (docs/transforms.md, "CSV"): one row per element of the record's array
 * field (an order's lines, a count's items), the record's own fields repeated on each of its rows.
 */
export interface CsvLayout {
  /** The record's own columns, the same on every row of one record; the stream's keyField among them. */
  head: readonly CsvColumn[];
  /** The record's array field that each row adds one element to, e.g. `lines`. */
  rows: string;
  /** The columns of one element of it. */
  row: readonly CsvColumn[];
}

/** One column: named as the record's field, its cell a text or a number; an optional one may be absent or empty. */
export interface CsvColumn {
  name: string;
  /** Default: text. */
  type?: 'text' | 'number';
  /** Default: required. */
  optional?: boolean;
}
