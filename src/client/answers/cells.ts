/**
 * Cells of collection rows read liberally (docs/service.md): ids and names may come as JSON numbers,
 * anything may be null or absent. Each answers undefined for what it cannot use.
 */

/** Text or an id: a non-empty string, or a number as a string (`"physicalInventoryId": 328966`). */
export const textOf = (v: unknown): string | undefined =>
  typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined;

/** A URL: a non-empty string only (a number is no path to follow). */
export const urlOf = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** A number, or a string that holds one. */
export const numberOf = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v)
    ? v
    : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))
      ? Number(v)
      : undefined;
