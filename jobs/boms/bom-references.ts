import type { RecordReferences } from '../../src/records/record-references.js';
import type { BomRecord } from './bom-record.js';

/** A bill of materials names its product and each component; no facility. */
export function bomReferences(bom: BomRecord): RecordReferences {
  return { products: [bom.productId, ...bom.components.map((c) => c.productId)], facilities: [] };
}
