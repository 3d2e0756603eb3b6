import { statSync } from 'node:fs';
import { facilityKey, loadMapping, type Mapping } from '../../config/mapping-file.js';
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

/** An upstream system's own id (`shopify:123`, `shopify:123 / shipping`): a name the service never has unless mapped. */
const UPSTREAM_ID = /^[a-z][a-z0-9+.-]*:(?!\/\/)\S/i;

/**
 * What a bad-record message adds after the upstream value: ` (mapped to "MUG-BLUE")` for a mapped value; for an
 * upstream system's id that is not mapped, that MAPPING_FILE is where it gets the service's name; nothing otherwise.
 */
export function mappedNote(catalog: CatalogApi, kind: MappedKind, value: string): string {
  const to = catalog.mapped?.(kind, value);
  if (to !== undefined) return ` (mapped to "${to}")`;
  if (!UPSTREAM_ID.test(value.trim()) || isUrl(value.trim())) return '';
  const where = catalog.mapped ? 'MAPPING_FILE has no entry for it' : 'MAPPING_FILE is not set';
  return ` (an upstream id: ${where}; map it to the service's ${kind} there, docs/mapping.md)`;
}

/**
 * The catalog under MAPPING_FILE: an upstream productId or facility name is looked up as the service's, when the
 * mapping has one, and as itself otherwise. Answers carry the service's product (productId, productUrl) and facility;
 * `products` answers under the ids asked. buildDeps installs it, so every kind, reconcile, check and dry run map alike.
 */
export class MappedCatalog implements CatalogApi {
  private readAt: number;

  constructor(
    private readonly inner: CatalogApi,
    public mapping: Mapping,
    /** Told of a changed file that could not be read again (the mapping read before stays). */
    private readonly onProblem: (problems: string[]) => void = () => undefined,
  ) {
    this.readAt = modifiedAt(mapping.file);
  }

  /**
   * Reads MAPPING_FILE again when its file changed since it was read (the look for waiting records asks before each
   * look, src/queue/wait/wait-look.ts): a new entry releases the records that wait for its name. A file that reads
   * with problems now leaves the mapping as it was, and says why.
   */
  reloadMapping(): void {
    const at = modifiedAt(this.mapping.file);
    if (at === this.readAt) return;
    this.readAt = at;
    const loaded = loadMapping(this.mapping.file);
    if ('mapping' in loaded) this.mapping = loaded.mapping;
    else this.onProblem(loaded.problems);
  }

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

function modifiedAt(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}
