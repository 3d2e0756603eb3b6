import type { CallOptions, ServiceApi } from '../client/service-api.js';

/** Quantity on hand per location facilityUrl, then per productUrl. */
export type StockOnHand = Map<string, Map<string, number>>;

/**
 * Reads the inventory item collection once (one collection GET) and sums quantityOnHand per
 * (facilityUrl, productUrl): the service keeps one row per lot, packing and order, so a pair can span rows.
 */
export async function readStockOnHand(client: ServiceApi, o?: CallOptions): Promise<StockOnHand> {
  const rows = await client.listInventoryItems(o);
  const out: StockOnHand = new Map();
  for (const row of rows) {
    const qty = row.quantityOnHand ?? 0;
    let products = out.get(row.facilityUrl);
    if (!products) {
      products = new Map();
      out.set(row.facilityUrl, products);
    }
    products.set(row.productUrl, (products.get(row.productUrl) ?? 0) + qty);
  }
  return out;
}
