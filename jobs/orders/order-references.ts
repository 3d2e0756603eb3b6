import type { RecordReferences } from '../../src/records/record-references.js';
import { isReturnNotice, type OrderInput } from './order-record.js';

/**
 * An order names its origin (a magazine), and per line a product and the location the units leave from; its
 * fulfillments and returns name products and locations too.
 */
export function orderReferences(order: OrderInput): RecordReferences {
  const notice = isReturnNotice(order);
  const parts = [...(notice ? [] : (order.fulfillments ?? [])), ...(order.returns ?? [])].flatMap((p) => p.lines);
  const lines = [...(notice ? [] : order.lines), ...parts];
  const locations = [...new Set(lines.map((l) => l.location))].map((name) => ({ name, want: 'location' as const }));
  return {
    products: [...new Set(lines.map((l) => l.productId))],
    facilities: notice ? locations : [{ name: order.origin, want: 'magazine' }, ...locations],
  };
}
