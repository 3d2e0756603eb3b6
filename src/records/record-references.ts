/** What a facility named by a record must be: an order's origin is a magazine, stock moves at a location. */
export type FacilityKind = 'magazine' | 'location';

/** The names of the account's entities that one record relies on (what `check` looks up before anything runs). */
export interface RecordReferences {
  /** Visible productIds, as the record names them. */
  products: string[];
  /** Facility names or URLs, each with the kind the record needs it to be. */
  facilities: Array<{ name: string; want: FacilityKind }>;
}
