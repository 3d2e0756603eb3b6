import type { FacilityRow, ProductRow } from '../client/answers/schemas.js';
import type { CatalogProduct, Facility, FacilityLookup } from './types.js';

/** What is cached in Redis under keys.catalog(): the two collections as fetched, and when the fetch began. */
export interface CatalogSnapshot {
  fetchedAt: number;
  products: CatalogProduct[];
  facilities: Array<Pick<FacilityRow, 'facilityId' | 'facilityUrl' | 'facilityName' | 'parentFacilityUrl'>>;
}

/** Builds a snapshot from collection rows, keeping only what lookups need. */
export function snapshotOf(fetchedAt: number, products: ProductRow[], facilities: FacilityRow[]): CatalogSnapshot {
  return {
    fetchedAt,
    products: products.map((p) =>
      p.statusId
        ? { productId: p.productId, productUrl: p.productUrl, statusId: p.statusId }
        : { productId: p.productId, productUrl: p.productUrl },
    ),
    facilities: facilities.map((f) => {
      const out: CatalogSnapshot['facilities'][number] = { facilityUrl: f.facilityUrl };
      if (f.facilityId) out.facilityId = f.facilityId;
      if (f.facilityName) out.facilityName = f.facilityName;
      if (f.parentFacilityUrl) out.parentFacilityUrl = f.parentFacilityUrl;
      return out;
    }),
  };
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** "Main Warehouse/A-01" and "Main Warehouse /  A-01" both read as "Main Warehouse / A-01". */
function normalPath(name: string): string {
  return name
    .split('/')
    .map((part) => part.trim())
    .join(' / ');
}

/** A facility URL as a path, when the text is one (a path or an absolute URL). */
function asUrlPath(text: string): string | undefined {
  if (text.startsWith('/')) return text;
  if (/^https?:\/\//i.test(text)) {
    try {
      return new URL(text).pathname;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** Heap bytes per product and per facility beyond their text (the objects and map entries), measured by bench/catalog-memory.ts. */
const PRODUCT_BYTES = 220;
const FACILITY_BYTES = 400;

function estimateBytes(s: CatalogSnapshot): number {
  let bytes = 0;
  for (const p of s.products) bytes += PRODUCT_BYTES + p.productId.length + p.productUrl.length;
  for (const f of s.facilities) bytes += FACILITY_BYTES + 2 * (f.facilityUrl.length + (f.facilityName?.length ?? 0));
  return bytes;
}

/** In-memory lookups over one snapshot: every hit is a Map read. */
export class CatalogIndex {
  readonly fetchedAt: number;
  /** Heap the index holds, estimated at build: catalog-budget.ts bounds the sum, bench/catalog-memory.ts measures it. */
  readonly estimatedBytes: number;
  private readonly productsById = new Map<string, CatalogProduct>();
  private readonly productIdsByUrl = new Map<string, string>();
  private readonly facilitiesByUrl = new Map<string, Facility>();
  private readonly facilitiesByName = new Map<string, Facility[]>();
  private readonly facilitiesByPath = new Map<string, Facility[]>();

  constructor(snapshot: CatalogSnapshot) {
    this.fetchedAt = snapshot.fetchedAt;
    this.estimatedBytes = estimateBytes(snapshot);
    for (const p of snapshot.products) {
      if (!this.productsById.has(p.productId)) this.productsById.set(p.productId, p);
      this.productIdsByUrl.set(p.productUrl, p.productId);
    }
    const names = new Map<string, string | undefined>();
    for (const f of snapshot.facilities) names.set(f.facilityUrl, f.facilityName ?? undefined);
    for (const row of snapshot.facilities) {
      const name = row.facilityName?.trim() || row.facilityId || row.facilityUrl;
      const parentName = row.parentFacilityUrl ? names.get(row.parentFacilityUrl)?.trim() : undefined;
      const facility: Facility = {
        facilityUrl: row.facilityUrl,
        kind: row.parentFacilityUrl ? 'location' : 'magazine',
        path: parentName ? `${parentName} / ${name}` : name,
      };
      if (row.facilityId) facility.facilityId = row.facilityId;
      if (row.facilityName) facility.facilityName = row.facilityName;
      if (row.parentFacilityUrl) facility.parentFacilityUrl = row.parentFacilityUrl;
      this.facilitiesByUrl.set(facility.facilityUrl, facility);
      if (row.facilityName?.trim()) push(this.facilitiesByName, row.facilityName.trim(), facility);
      if (parentName) push(this.facilitiesByPath, normalPath(facility.path), facility);
    }
  }

  get productCount(): number {
    return this.productsById.size;
  }

  get facilityCount(): number {
    return this.facilitiesByUrl.size;
  }

  product(productId: string): CatalogProduct | undefined {
    return this.productsById.get(productId);
  }

  productIdByUrl(productUrl: string): string | undefined {
    return this.productIdsByUrl.get(productUrl);
  }

  /** By facilityUrl, exact facilityName or "Parent name / name"; several matches are ambiguous. */
  facility(nameOrUrl: string): FacilityLookup {
    const text = nameOrUrl.trim();
    const url = asUrlPath(text);
    if (url !== undefined) {
      const f = this.facilitiesByUrl.get(url);
      return f ? { ok: true, facility: f } : { ok: false, reason: 'unknown' };
    }
    const byName = this.facilitiesByName.get(text);
    const byPath = text.includes('/') ? this.facilitiesByPath.get(normalPath(text)) : undefined;
    let matches = byName ?? byPath ?? [];
    if (byName && byPath) matches = [...new Set([...byName, ...byPath])];
    if (matches.length === 1) return { ok: true, facility: matches[0]! };
    if (matches.length === 0) return { ok: false, reason: 'unknown' };
    return { ok: false, reason: 'ambiguous', candidates: matches.map((f) => `${f.path} (${f.facilityUrl})`) };
  }
}
