/** A facility of the account, with its kind: a magazine has no parent, a location has one. */
export interface Facility {
  facilityId?: string;
  facilityUrl: string;
  facilityName?: string;
  parentFacilityUrl?: string;
  /** "Parent name / name" for locations, the name for magazines. */
  path: string;
  kind: 'magazine' | 'location';
}

export interface CatalogProduct {
  productId: string;
  productUrl: string;
  statusId?: string;
}

/** Why a name did not resolve. */
export type FacilityMiss = 'unknown' | 'ambiguous';

export type FacilityLookup = { ok: true; facility: Facility } | { ok: false; reason: FacilityMiss; candidates?: string[] };

/** What MAPPING_FILE maps: upstream productIds and facility names. */
export type MappedKind = 'product' | 'facility';

/**
 * The account's products and facilities, resolved by visible name. Cached in Redis, refreshed on a miss
 * at most once every CATALOG_REFRESH_SECONDS across all processes.
 */
export interface CatalogApi {
  /** productId -> product, or undefined when the product collection does not have it (after a refresh if allowed). */
  product(productId: string): Promise<CatalogProduct | undefined>;
  /** Resolve many at once (one refresh at most). */
  products(productIds: string[]): Promise<Map<string, CatalogProduct>>;
  /** By facilityUrl, exact facilityName, or "Parent name / name". */
  facility(nameOrUrl: string): Promise<FacilityLookup>;
  /** productUrl -> productId for every product (to read entities back). */
  productIdByUrl(productUrl: string): Promise<string | undefined>;
  /** Reload from the service now (spends collection budget). */
  refresh(): Promise<void>;
  /** The service's name for an upstream value under MAPPING_FILE, for messages (src/catalog/mapped-catalog.ts); absent: no mapping. */
  mapped?(kind: MappedKind, value: string): string | undefined;
  /** Reads MAPPING_FILE again if its file changed (mapped-catalog.ts); absent: no mapping. */
  reloadMapping?(): void;
}
