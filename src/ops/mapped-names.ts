import type { Mapping } from '../../config/mapping-file.js';
import { mappedName } from '../catalog/mapped-catalog.js';
import type { MappedKind } from '../catalog/types.js';

/** An upstream name of a record and the service's name MAPPING_FILE gives it. */
export interface MappedNameRow {
  kind: MappedKind;
  upstream: string;
  service: string;
}

/** The record fields that name a product or a facility, in every stream (docs/records.md). */
const FIELDS: Record<string, MappedKind> = {
  productId: 'product',
  origin: 'facility',
  location: 'facility',
  facilityName: 'facility',
  facilityUrl: 'facility',
};

function collect(value: unknown, out: Map<string, MappedKind>, depth = 0): void {
  if (depth > 8 || !value || typeof value !== 'object') return;
  if (Array.isArray(value)) return value.forEach((v) => collect(v, out, depth + 1));
  for (const [field, v] of Object.entries(value)) {
    const kind = FIELDS[field];
    if (kind && typeof v === 'string' && v.trim()) out.set(`${kind}\u0000${v.trim()}`, kind);
    else collect(v, out, depth + 1);
  }
}

/**
 * Every product and facility the records name that the mapping maps, each once, with the service's name: what `find`
 * shows beside the record.
 */
export function mappedNamesOf(records: unknown[], mapping: Mapping | undefined): MappedNameRow[] {
  if (!mapping) return [];
  const names = new Map<string, MappedKind>();
  for (const r of records) collect(r, names);
  const rows: MappedNameRow[] = [];
  for (const [k, kind] of names) {
    const upstream = k.slice(k.indexOf('\u0000') + 1);
    const service = mappedName(mapping, kind, upstream);
    if (service !== undefined) rows.push({ kind, upstream, service });
  }
  return rows.sort((a, b) => a.kind.localeCompare(b.kind) || a.upstream.localeCompare(b.upstream));
}
