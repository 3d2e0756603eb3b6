import { facilityKey, type Mapping } from '../../config/mapping-file.js';
import type { CatalogApi, CatalogProduct, FacilityLookup, MappedKind } from './types.js';

const isUrl = (text: string) => text.startsWith('/') || /^https?:\/\//i.test(text);

/**
 * The service's name for an upstream value under the mapping, or undefined when it has none. A facility path
 * "WH1 / A-01" whose magazine "WH1" is aliased to a name reads as "<that name> / A-01", unless the path has an alias of its own.
 */
export function mappedName(mapping: Mapping | undefined, kind: MappedKind, value: string): string | undefined {
  if (!mapping) return undefined;
  if (kind === 'product') return mapping.products.get(value.trim());
  const key = facilityKey(value);
  const exact = mapping.facilities.get(key);
  if (exact !== undefined || isUrl(key) || !key.includes(' / ')) return exact;
  const [magazine, ...rest] = key.split(' / ');
  const alias = mapping.facilities.get(magazine!);
  return alias !== undefined && !isUrl(alias) && !alias.includes('/') ? [alias, ...rest].join(' / ') : undefined;
}

/** ` (mapped to "MUG-BLUE")` for a mapped value, nothing otherwise: what a bad-record message adds after the upstream value. */
export function mappedNote(catalog: CatalogApi, kind: MappedKind, value: string): string {
  const to = catalog.mapped?.(kind, value);
  return to === undefined ? '' : ` (mapped to "${to}")`;
}

/**
 * The catalog under MAPPING_FILE: an upstream productId or facility name is looked up as the service's, when the
 * mapping has one, and as itself otherwise. Answers carry the service's product (productId, productUrl) and facility;
 * `products` answers under the ids asked. buildDeps installs it, so every kind, reconcile, check and dry run map alike.
 */
export class MappedCatalog implements CatalogApi {
  constructor(
    private readonly inner: CatalogApi,
    readonly mapping: Mapping,
  ) {}

  mapped(kind: MappedKind, value: string): string | undefined {
    return mappedName(this.mapping, kind, value);
  }

  private serviceId(productId: string): string {
    return this.mapped('product', productId) ?? productId;
  }

  product(productId: string): Promise<CatalogProduct | undefined> {
    return this.inner.product(this.serviceId(productId));
  }

  async products(productIds: string[]): Promise<Map<string, CatalogProduct>> {
    const found = await this.inner.products([...new Set(productIds.map((id) => this.serviceId(id)))]);
    const out = new Map<string, CatalogProduct>();
    for (const id of productIds) {
      const p = found.get(this.serviceId(id));
      if (p) out.set(id, p);
    }
    return out;
  }

  facility(nameOrUrl: string): Promise<FacilityLookup> {
    return this.inner.facility(this.mapped('facility', nameOrUrl) ?? nameOrUrl);
  }

  productIdByUrl(productUrl: string): Promise<string | undefined> {
    return this.inner.productIdByUrl(productUrl);
  }

  refresh(): Promise<void> {
    return this.inner.refresh();
  }
}
