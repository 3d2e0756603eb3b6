/** What a record may name that the service lacks, and wait for (src/queue/wait/): a product (a BOM's component too) or a facility. */
export type ReferenceType = 'product' | 'facility';

/** A missing reference, by the name the record gives it (MAPPING_FILE applies when it is looked up again). */
export interface Reference {
  type: ReferenceType;
  name: string;
}

/** `product:MUG-ORANGE`: how a reference is kept in Redis and grouped. */
export function refKey(r: Reference): string {
  return `${r.type}:${r.name}`;
}

/** The reference of a key made by refKey. */
export function refOf(key: string): Reference {
  const at = key.indexOf(':');
  return { type: key.slice(0, at) === 'facility' ? 'facility' : 'product', name: key.slice(at + 1) };
}

/** `product MUG-ORANGE`, for people. */
export function refWords(r: Reference): string {
  return `${r.type} ${r.name}`;
}
