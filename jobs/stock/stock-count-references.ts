import type { RecordReferences } from '../../src/records/record-references.js';
import type { StockCountRecord } from './stock-count-record.js';

/** A count names its location and each counted product. */
export function stockCountReferences(count: StockCountRecord): RecordReferences {
  return { products: count.items.map((i) => i.productId), facilities: [{ name: count.location, want: 'location' }] };
}
