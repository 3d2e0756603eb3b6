/**
 * Records of the order's life for intake tests (CSV, NDJSON, push): an order export with a shipped part and a
 * cancelled order, the snapshots it reads as, and a snapshot and a return notice as NDJSON records.
 */

/** An order export of the order's life: WEB-1 open with one part shipped, WEB-2 cancelled. */
export const lifeExport = [
  'orderId,status,updatedAt,origin,productId,quantity,unitPrice,location,fulfillmentId',
  'WEB-1,open,2026-11-21T15:30:12,Main Warehouse,MUG-BLUE,2,12.5,Main Warehouse / A-01,WEB-1-F1',
  'WEB-1,open,2026-11-21T15:30:12,Main Warehouse,SKU-0003,1,4,Main Warehouse / A-02,WEB-1-F1',
  'WEB-1,open,2026-11-21T15:30:12,Main Warehouse,MUG-RED,3,12.5,Main Warehouse / A-02,',
  'WEB-2,cancelled,2026-11-20T12:40:03,Main Warehouse,MUG-BLUE,1,12.5,Main Warehouse / A-01,',
].join('\r\n');

export const lifeSnapshots = [
  {
    orderId: 'WEB-1',
    status: 'open',
    updatedAt: '2026-11-21T15:30:12',
    origin: 'Main Warehouse',
    lines: [
      { productId: 'MUG-BLUE', quantity: 2, unitPrice: 12.5, location: 'Main Warehouse / A-01' },
      { productId: 'SKU-0003', quantity: 1, unitPrice: 4, location: 'Main Warehouse / A-02' },
      { productId: 'MUG-RED', quantity: 3, unitPrice: 12.5, location: 'Main Warehouse / A-02' },
    ],
    fulfillments: [
      {
        fulfillmentId: 'WEB-1-F1',
        lines: [
          { productId: 'MUG-BLUE', quantity: 2, location: 'Main Warehouse / A-01' },
          { productId: 'SKU-0003', quantity: 1, location: 'Main Warehouse / A-02' },
        ],
      },
    ],
  },
  {
    orderId: 'WEB-2',
    status: 'cancelled',
    updatedAt: '2026-11-20T12:40:03',
    origin: 'Main Warehouse',
    lines: [{ productId: 'MUG-BLUE', quantity: 1, unitPrice: 12.5, location: 'Main Warehouse / A-01' }],
  },
];

/** A snapshot with a shipped part and a restocked return, as NDJSON carries it. */
export function lifeSnapshot(orderId: string): Record<string, unknown> {
  return {
    orderId,
    status: 'open',
    updatedAt: '2026-11-23T10:00:00',
    origin: 'Main Warehouse',
    lines: [
      { productId: 'MUG-BLUE', quantity: 3, unitPrice: 12.5, location: 'Main Warehouse / A-01' },
      { productId: 'MUG-RED', quantity: 1, unitPrice: 12.5, location: 'Main Warehouse / A-02' },
    ],
    fulfillments: [{ fulfillmentId: `${orderId}-F1`, lines: [{ productId: 'MUG-BLUE', quantity: 3, location: 'Main Warehouse / A-01' }] }],
    returns: [
      {
        returnId: `${orderId}-R1`,
        restock: true,
        returnedAt: '2026-11-23T10:00:00',
        lines: [{ productId: 'MUG-BLUE', quantity: 1, location: 'Main Warehouse / A-01' }],
      },
    ],
  };
}

/** A return notice: a return of the order told on its own. */
export function returnNotice(orderId: string): Record<string, unknown> {
  return {
    orderId,
    updatedAt: '2026-11-24T09:00:00',
    returns: [
      { returnId: `${orderId}-R2`, restock: false, lines: [{ productId: 'MUG-RED', quantity: 1, location: 'Main Warehouse / A-02' }] },
    ],
  };
}
