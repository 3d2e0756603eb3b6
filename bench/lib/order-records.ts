/** Order records over the sandbox's demo account: 1-3 lines of demo SKUs at Main Warehouse locations. */
export interface BenchOrder {
  orderId: string;
  origin: string;
  lines: Array<{ productId: string; quantity: number; unitPrice: number; location: string }>;
}

const LOCATIONS = ['A-01', 'A-02', 'A-03', 'A-04', 'A-05', 'A-06'];

export function benchOrders(tag: string, n: number): BenchOrder[] {
  return Array.from({ length: n }, (_, i) => ({
    orderId: `${tag}-${i + 1}`,
    origin: 'Main Warehouse',
    lines: Array.from({ length: 1 + (i % 3) }, (_, j) => ({
      productId: `SKU-${String(1 + ((i * 7 + j * 13) % 240)).padStart(4, '0')}`,
      quantity: 1 + (j % 2),
      unitPrice: 9.5 + j,
      location: `Main Warehouse / ${LOCATIONS[(i + j) % LOCATIONS.length]}`,
    })),
  }));
}
