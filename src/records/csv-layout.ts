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
  /** More of the record read from the same rows, shaped by the kind (an order's status and fulfillments). None: none. */
  extra?: CsvExtra;
  /**
   * Each row stands alone (a count's rows are applied per location and product): its element takes the row's file line
   * in the field `line`, and a row with a bad cell fails alone, as the record `{key}~{its rowKey cell}`, while the
   * record is made of the other rows. None: a bad row breaks its whole record (an order without one of its lines is
   * another order).
   */
  rowsAlone?: { line: string; rowKey: string };
}

/**
 * Columns beyond the plain layout, and the kind's hook that shapes the record from them: e.g. a row's fulfillmentId
 * makes its line part of that fulfillment. Its columns are not listed in the header error of a plain file.
 */
export interface CsvExtra {
  /** More record columns, the same on every row of a record (as head's); set on the record as read. */
  head?: readonly CsvColumn[];
  /** More columns of each row, kept out of the element: `shape` gets them per row. */
  row?: readonly CsvColumn[];
  /**
   * The record to check, from the record as read (head's and extra head's fields, the rows field filled) and each
   * row's extra cells with its file line. Throws for a record it cannot make, naming the line and column.
   */
  shape(read: CsvRead): Record<string, unknown>;
}

/** A record as its rows read, for CsvExtra.shape. */
export interface CsvRead {
  record: Record<string, unknown>;
  /** Per element of the rows field, in order: the file line it was read from and the row's extra cells (absent: empty). */
  rows: readonly { line: number; cells: Record<string, unknown> }[];
}

/** One column: named as the record's field, its cell a text or a number; an optional one may be absent or empty. */
export interface CsvColumn {
  name: string;
  /** Default: text. */
  type?: 'text' | 'number';
  /** Default: required. */
  optional?: boolean;
}

/** Every column a layout reads: the record's, then one row's (its extra ones after each). */
export function csvColumns(layout: CsvLayout): { head: readonly CsvColumn[]; row: readonly CsvColumn[] } {
  return { head: [...layout.head, ...(layout.extra?.head ?? [])], row: [...layout.row, ...(layout.extra?.row ?? [])] };
}
