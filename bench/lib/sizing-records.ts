/** Stock counts and BOMs over the sandbox's demo account, for the Redis sizing bench (orders: order-records.ts). */
const LOCATIONS = [
  ...['A-01', 'A-02', 'A-03', 'A-04', 'A-05', 'A-06'].map((l) => `Main Warehouse / ${l}`),
  ...['N-01', 'N-02', 'N-03', 'N-04'].map((l) => `North Depot / ${l}`),
];
const sku = (n: number) => `SKU-${String(1 + (n % 240)).padStart(4, '0')}`;

/** Counts of 3 products each, over the 10 locations, a day later every 10 counts (a later count of a product wins). */
export function benchCounts(tag: string, n: number) {
  return Array.from({ length: n }, (_, i) => ({
    countId: `${tag}-${i + 1}`,
    location: LOCATIONS[i % LOCATIONS.length]!,
    countDate: new Date(Date.UTC(2026, 0, 1) + Math.floor(i / LOCATIONS.length) * 86_400_000).toISOString().slice(0, 10),
    items: [0, 1, 2].map((j) => ({ productId: sku(i * 3 + j), quantity: 1 + ((i + j) % 50) })),
  }));
}

/** BOMs of 2 components each; past 240 records a product's BOM is delivered again, changed. */
export function benchBoms(n: number) {
  return Array.from({ length: n }, (_, i) => ({
    productId: sku(i),
    components: [1, 2].map((j) => ({ productId: sku(i + j * 7 + Math.floor(i / 240)), quantity: 1 + ((i + j) % 5) })),
  }));
}
