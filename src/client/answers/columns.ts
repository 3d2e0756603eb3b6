/** A collection answer that is neither column-major nor an array of rows. */
export class ColumnsShapeError extends Error {
  constructor(reason: string) {
    super(`collection answer is not column-major JSON: ${reason}`);
    this.name = 'ColumnsShapeError';
  }
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'string' ? 'a string' : `a ${typeof v}`;
}

/**
 * Turns a column-major collection answer (`{"productId":["A","B"],"productUrl":[...]}`) into rows.
 * Columns may differ in length: rows are sized by the longest column and a missing cell is left out of its
 * row (no key, not an undefined value). An array of objects is accepted as rows too, and `{}` is no rows.
 * Throws ColumnsShapeError for anything else.
 */
export function decodeColumns(body: unknown): Record<string, unknown>[] {
  if (Array.isArray(body)) {
    for (let i = 0; i < body.length; i++) {
      const row: unknown = body[i];
      if (row === null || typeof row !== 'object' || Array.isArray(row)) {
        throw new ColumnsShapeError(`row ${i} is ${describe(row)}, not an object`);
      }
    }
    return body as Record<string, unknown>[];
  }
  if (body === null || typeof body !== 'object') throw new ColumnsShapeError(`the body is ${describe(body)}`);

  const names = Object.keys(body);
  const columns: unknown[][] = new Array(names.length);
  let length = 0;
  for (let c = 0; c < names.length; c++) {
    const column = (body as Record<string, unknown>)[names[c]!];
    if (!Array.isArray(column)) throw new ColumnsShapeError(`column "${names[c]}" is ${describe(column)}, not an array`);
    columns[c] = column;
    if (column.length > length) length = column.length;
  }

  const rows: Record<string, unknown>[] = new Array(length);
  for (let r = 0; r < length; r++) {
    const row: Record<string, unknown> = {};
    for (let c = 0; c < names.length; c++) {
      const column = columns[c]!;
      // A short column or a hole leaves the field out of the row.
      if (r < column.length && column[r] !== undefined) row[names[c]!] = column[r];
    }
    rows[r] = row;
  }
  return rows;
}
