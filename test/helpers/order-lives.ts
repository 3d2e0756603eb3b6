/** Order lives for the operator tests: snapshots of an order as the upstream tells them (upstream-feed "The order's life"). */

export const A01 = 'Main Warehouse / A-01';
export const A02 = 'A-02';
const BLUE = { productId: 'MUG-BLUE', unitPrice: 12.5, location: A01 };
const SKU3 = { productId: 'SKU-0003', unitPrice: 4, location: A02 };

/** A snapshot of an order: open with 3 MUG-BLUE at A-01 and 1 SKU-0003 at A-02 unless told otherwise. */
export function snap(orderId: string, o: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    orderId,
    status: 'open',
    origin: 'Main Warehouse',
    lines: [
      { ...BLUE, quantity: 3 },
      { ...SKU3, quantity: 1 },
    ],
    ...o,
  };
}

/** The two parts of the order of `snap`: 2 MUG-BLUE from A-01, then 1 MUG-BLUE and 1 SKU-0003 from both places. */
export function partsOf(orderId: string) {
  return [
    { fulfillmentId: `${orderId}-F1`, lines: [{ productId: 'MUG-BLUE', quantity: 2, location: A01 }] },
    {
      fulfillmentId: `${orderId}-F2`,
      lines: [
        { productId: 'MUG-BLUE', quantity: 1, location: A01 },
        { productId: 'SKU-0003', quantity: 1, location: A02 },
      ],
    },
  ];
}

/** A restocked return of one MUG-BLUE to A-01. */
export const returnOf = (orderId: string) => ({
  returnId: `${orderId}-R1`,
  restock: true,
  returnedAt: '2026-11-23T10:00:00',
  lines: [{ productId: 'MUG-BLUE', quantity: 1, location: A01 }],
});

/**
 * A life told in snapshots: open, one part shipped, a late copy of the open one (older: skipped), fulfilled in two
 * parts, a restocked return.
 */
export function shippedLife(orderId: string): Array<Record<string, unknown>> {
  const [f1, f2] = partsOf(orderId);
  return [
    snap(orderId, { updatedAt: '2026-11-20T10:00:00' }),
    snap(orderId, { updatedAt: '2026-11-20T11:00:00', fulfillments: [f1] }),
    snap(orderId, { updatedAt: '2026-11-20T10:30:00' }),
    snap(orderId, { status: 'fulfilled', updatedAt: '2026-11-20T12:00:00', fulfillments: [f1, f2] }),
    snap(orderId, { status: 'fulfilled', updatedAt: '2026-11-23T10:05:00', fulfillments: [f1, f2], returns: [returnOf(orderId)] }),
  ];
}

/** Opened, then cancelled before anything shipped. */
export function cancelledLife(orderId: string): Array<Record<string, unknown>> {
  return [snap(orderId, { updatedAt: '2026-11-20T10:00:00' }), snap(orderId, { status: 'cancelled', updatedAt: '2026-11-20T11:00:00' })];
}
