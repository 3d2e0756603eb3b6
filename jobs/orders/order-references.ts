import type { RecordReferences } from '../../src/records/record-references.js';
import type { OrderRecord } from './order-record.js';

/** An order names its origin (a magazine), and per line a product and the location the units leave from. */
export function orderReferences(order: OrderRecord): RecordReferences {
  return {
    products: order.lines.map((l) => l.productId),
    facilities: [{ name: order.origin, want: 'magazine' }, ...order.lines.map((l) => ({ name: l.location, want: 'location' as const }))],
  };
}
