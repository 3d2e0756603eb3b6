import type { InventoryRow, ProductEntity } from './sandbox-entities.js';

const pairKey = (facilityUrl: string, productUrl: string) => `${facilityUrl}\n${productUrl}`;
const reservedKey = (rows: readonly InventoryRow[]) =>
  rows.map((r) => `${pairKey(r.facilityUrl, r.productUrl)} ${r.quantityReserved}`).join('\n');

/**
 * Stock on hand: rows per (facility, product, lot, packing), as the inventory item collection answers them.
 * The quantity on hand of a product at a location is the sum over its rows. Reserved units of locked orders are
 * rows of their own, per (origin facility, product, order), set by reservations.ts and never part of `rows`
 * (the state dump): they follow from the orders.
 */
export class Inventory {
  readonly rows: InventoryRow[];
  private readonly byId = new Map<string, InventoryRow>();
  private readonly byPair = new Map<string, InventoryRow[]>();
  /** orderId -> its reservation rows. */
  private readonly reserved = new Map<string, InventoryRow[]>();
  private seq = 10000;

  constructor(
    rows: InventoryRow[],
    private readonly api: string,
  ) {
    this.rows = rows;
    for (const r of rows) {
      this.index(r);
      const n = Number(r.inventoryItemId);
      if (Number.isInteger(n) && n >= this.seq) this.seq = n + 1;
    }
  }

  get(id: string): InventoryRow | undefined {
    return this.byId.get(id);
  }

  /** Every row the collection answers: stock on hand, then the reservations. */
  allRows(): InventoryRow[] {
    return this.reserved.size ? [...this.rows, ...[...this.reserved.values()].flat()] : this.rows;
  }

  /**
   * Sets an order's reservations at a facility to these units (none releases them); a product keeps its row,
   * and its id, while it stays reserved. Answers whether any quantity changed.
   */
  reserve(orderId: string, facilityUrl: string, units: ReadonlyArray<readonly [ProductEntity, number]>): boolean {
    const before = this.reserved.get(orderId) ?? [];
    const was = reservedKey(before);
    const after = units.map(([product, quantity]) => {
      const row =
        before.find((r) => r.facilityUrl === facilityUrl && r.productUrl === product.productUrl) ??
        this.newRow(facilityUrl, product, null, null);
      row.quantityReserved = quantity;
      this.byId.set(row.inventoryItemId, row);
      return row;
    });
    for (const r of before) if (!after.includes(r)) this.byId.delete(r.inventoryItemId);
    if (after.length) this.reserved.set(orderId, after);
    else this.reserved.delete(orderId);
    return was !== reservedKey(after);
  }

  onHand(facilityUrl: string, productUrl: string): number {
    let sum = 0;
    for (const r of this.byPair.get(pairKey(facilityUrl, productUrl)) ?? []) sum += r.quantityOnHand;
    return sum;
  }

  /** Adds to the row of exactly this lot and packing (none by default), creating it when absent. */
  add(facilityUrl: string, product: ProductEntity, quantity: number, lotId: string | null = null, packing: string | null = null): void {
    const row =
      this.byPair.get(pairKey(facilityUrl, product.productUrl))?.find((r) => r.lotId === lotId && r.normalizedPackingString === packing) ??
      this.create(facilityUrl, product, lotId, packing);
    row.quantityOnHand = round(row.quantityOnHand + quantity);
  }

  /**
   * Takes a quantity off a (location, product): from its rows in collection order, each down to zero; what
   * remains comes off the row with no lot and no packing (created if needed), which may go negative.
   */
  takeOff(facilityUrl: string, product: ProductEntity, quantity: number): void {
    let left = quantity;
    for (const r of this.byPair.get(pairKey(facilityUrl, product.productUrl)) ?? []) {
      if (left <= 0) break;
      const take = Math.min(left, Math.max(0, r.quantityOnHand));
      r.quantityOnHand = round(r.quantityOnHand - take);
      left = round(left - take);
    }
    if (left > 0) this.add(facilityUrl, product, -left);
  }

  private create(facilityUrl: string, product: ProductEntity, lotId: string | null, packing: string | null): InventoryRow {
    const row = this.newRow(facilityUrl, product, lotId, packing);
    this.rows.push(row);
    this.index(row);
    return row;
  }

  private newRow(facilityUrl: string, product: ProductEntity, lotId: string | null, packing: string | null): InventoryRow {
    const id = String(this.seq++);
    return {
      inventoryItemId: id,
      inventoryItemUrl: `${this.api}/inventoryitem/${encodeURIComponent(id)}`,
      facilityUrl,
      productId: product.productId,
      productUrl: product.productUrl,
      quantityOnHand: 0,
      quantityReserved: 0,
      quantityOnOrder: 0,
      lotId,
      normalizedPackingString: packing,
    };
  }

  private index(r: InventoryRow): void {
    this.byId.set(r.inventoryItemId, r);
    const k = pairKey(r.facilityUrl, r.productUrl);
    const list = this.byPair.get(k);
    if (list) list.push(r);
    else this.byPair.set(k, [r]);
  }
}

/** Keeps sums of decimal quantities free of binary noise. */
export function round(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}
