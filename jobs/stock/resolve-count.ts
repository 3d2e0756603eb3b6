import { mappedNote } from '../../src/catalog/mapped-catalog.js';
import type { CatalogApi, Facility } from '../../src/catalog/types.js';
import type { StockCountRecord } from './stock-count-record.js';
import { RECORD_HINT } from '../../src/errors/error-hints.js';
import { BadRecordError, MissingReferenceError } from '../../src/queue/job-errors.js';
import type { NamedItem } from './product-marks.js';

export interface ResolvedCount {
  location: Facility;
  /** The counted products, in record order. */
  items: NamedItem[];
}

/** Resolves a facility name that must be a location (a facility inside a magazine); BadRecordError otherwise. */
export async function resolveLocation(catalog: CatalogApi, recordId: string, field: string, name: string): Promise<Facility> {
  const found = await catalog.facility(name);
  const mapped = mappedNote(catalog, 'facility', name);
  if (!found.ok) {
    if (found.reason === 'ambiguous')
      throw new BadRecordError(
        recordId,
        field,
        `"${name}"${mapped} names several facilities (${(found.candidates ?? []).join(', ')}); ` +
          'use "Magazine / location" or the facilityUrl',
      );
    const reason = `no facility "${name}"${mapped} in the service (by facilityUrl, facilityName or "Magazine / location")`;
    throw new MissingReferenceError(recordId, field, reason, [{ type: 'facility', name }]);
  }
  if (found.facility.kind !== 'location') {
    throw new BadRecordError(recordId, field, `"${name}"${mapped} is a magazine; a stock count names a location inside one`, RECORD_HINT);
  }
  return found.facility;
}

/** A row as errors name it: the CSV file's line when the row came from one, else its path. */
function rowName(item: { line?: number | undefined }, i: number): string {
  return item.line === undefined ? `items.${i}` : `line ${item.line}`;
}

/** A row's field as errors name it: the CSV file's line and column when the row came from one, else its path. */
export function rowField(item: { line?: number | undefined }, i: number, column: string): string {
  return item.line === undefined ? `items.${i}.${column}` : `line ${item.line}, column ${column}`;
}

/** A row (at index `i`) whose product the service lacks. */
export interface UnknownRow {
  item: StockCountRecord['items'][number];
  i: number;
}

/** The failure of rows whose product the service lacks, named by the first one (retrying helps once it exists). */
export function unknownProductError(catalog: CatalogApi, record: StockCountRecord, unknown: readonly UnknownRow[]): MissingReferenceError {
  const { item, i } = unknown[0]!;
  const more = unknown.length > 1 ? ` (and ${unknown.length - 1} more unknown products)` : '';
  return new MissingReferenceError(
    record.countId,
    rowField(item, i, 'productId'),
    `no product ${item.productId}${mappedNote(catalog, 'product', item.productId)} in the service's product collection${more}`,
    unknown.map(({ item: u }) => ({ type: 'product' as const, name: u.productId })),
  );
}

/**
 * Resolves a count's location and products against the catalog. A row whose product the service lacks is answered
 * in `unknown` (not in `items`); every other problem is a BadRecordError naming the field.
 */
export async function resolveCount(catalog: CatalogApi, record: StockCountRecord): Promise<ResolvedCount & { unknown: UnknownRow[] }> {
  const location = await resolveLocation(catalog, record.countId, 'location', record.location);
  const firstIndex = new Map<string, number>();
  record.items.forEach((item, i) => {
    const before = firstIndex.get(item.productId);
    if (before !== undefined) {
      throw new BadRecordError(
        record.countId,
        rowField(item, i, 'productId'),
        `${item.productId} is counted twice (also ${rowName(record.items[before]!, before)}); send one line per product`,
        RECORD_HINT,
      );
    }
    firstIndex.set(item.productId, i);
  });
  const products = await catalog.products([...firstIndex.keys()]);
  const rows = record.items.map((item, i) => ({ item, i }));
  const unknown = rows.filter(({ item }) => !products.has(item.productId));
  const known = rows.filter(({ item }) => products.has(item.productId));
  // Two upstream productIds mapped to one service product would post two lines for one (location, product).
  const byUrl = new Map<string, number>();
  for (const { item, i } of known) {
    const url = products.get(item.productId)!.productUrl;
    const before = byUrl.get(url);
    if (before !== undefined) {
      const same = products.get(item.productId)!.productId;
      throw new BadRecordError(
        record.countId,
        rowField(item, i, 'productId'),
        `${item.productId} and ${rowName(record.items[before]!, before)} (${record.items[before]!.productId}) ` +
          `are both the service's product ${same}; send one line per product`,
      );
    }
    byUrl.set(url, i);
  }
  return {
    location,
    // The service's productId: it names the product in what is left to newer counts and in reconcile.
    items: known.map(({ item }) => {
      const { productId, productUrl } = products.get(item.productId)!;
      return { productId, productUrl, quantity: item.quantity };
    }),
    unknown,
  };
}
