import type { CsvLayout, CsvRead } from '../../src/records/csv-layout.js';

/**
 * An order export as CSV (docs/transforms.md, "CSV"): one row per line, the order's columns repeated on each. The
 * order's life adds optional columns: `status` and `updatedAt` per order, and `fulfillmentId` per row: a row that
 * carries one is a line shipped in that fulfillment (its productId, quantity and location); a row without one is
 * not shipped yet.
 */
export const orderCsv: CsvLayout = {
  head: [{ name: 'orderId' }, { name: 'orderDate', optional: true }, { name: 'origin' }, { name: 'shipmentIdUser', optional: true }],
  rows: 'lines',
  row: [{ name: 'productId' }, { name: 'quantity', type: 'number' }, { name: 'unitPrice', type: 'number' }, { name: 'location' }],
  extra: {
    head: [
      { name: 'status', optional: true },
      { name: 'updatedAt', optional: true },
    ],
    row: [{ name: 'fulfillmentId', optional: true }],
    shape: withFulfillments,
  },
};

interface ReadLine {
  productId: unknown;
  quantity: unknown;
  location: unknown;
}

/** The rows that carry a fulfillmentId as that fulfillment's lines, fulfillments in the order the file first names them. */
function withFulfillments({ record, rows }: CsvRead): Record<string, unknown> {
  const lines = record.lines as ReadLine[];
  const parts = new Map<string, ReadLine[]>();
  rows.forEach((row, i) => {
    const id = row.cells.fulfillmentId;
    if (typeof id !== 'string') return;
    const { productId, quantity, location } = lines[i]!;
    parts.set(id, [...(parts.get(id) ?? []), { productId, quantity, location }]);
  });
  // No row shipped: no fulfillments field, so a plain export means what it always meant.
  if (!parts.size) return record;
  return { ...record, fulfillments: [...parts].map(([fulfillmentId, partLines]) => ({ fulfillmentId, lines: partLines })) };
}
