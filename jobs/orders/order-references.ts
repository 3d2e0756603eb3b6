import type { RecordReferences } from '../../src/records/record-references.js';
import type { OrderRecord } from './order-record.js';

/**
 * An order names its origin (a magazine), and per line a product and the location the units leave from; its
 * fulfillments and returns name products and locations too.
 */
export function orderReferences(order: OrderRecord): RecordReferences {
  const parts = [...(order.fulfillments ?? []), ...(order.returns ?? [])].flatMap((p) => p.lines);
  const lines = [...order.lines, ...parts];
  return {
    products: [...new Set(lines.map((l) => l.productId))],
    facilities: [
      { name: order.origin, want: 'magazine' },
      ...[...new Set(lines.map((l) => l.location))].map((name) => ({ name, want: 'location' as const })),
    ],
  };
}
