import type { SandboxStore } from './store.js';

interface CollectionDef {
  columns: readonly string[];
  rows(store: SandboxStore): Iterable<object>;
}

/** The collections a GET on a collection root answers, with their columns (rows omit nested lists). */
const COLLECTIONS: Record<string, CollectionDef> = {
  facility: {
    columns: ['facilityId', 'facilityUrl', 'facilityName', 'parentFacilityUrl', 'facilityTypeId', 'statusId'],
    rows: (s) => s.facilities.values(),
  },
  product: {
    columns: ['productId', 'productUrl', 'internalName', 'statusId', 'productTypeId'],
    rows: (s) => s.products.values(),
  },
  order: {
    columns: ['orderId', 'orderUrl', 'orderTypeId', 'statusId', 'originFacilityUrl', 'orderDate', 'createdDate', 'lastUpdatedDate', 'orderItemListTotal'],
    rows: (s) => s.orders.values(),
  },
  ordersummary: {
    columns: ['orderId', 'orderUrl', 'statusId', 'orderDate', 'orderItemListTotal'],
    rows: (s) => s.orders.values(),
  },
  shipment: {
    columns: ['shipmentId', 'shipmentIdUser', 'shipmentUrl', 'shipmentTypeId', 'primaryOrderUrl', 'statusId', 'createdDate', 'lastUpdatedDate'],
    rows: (s) => s.shipments.values(),
  },
  inventoryvariance: {
    columns: ['physicalInventoryId', 'physicalInventoryUrl', 'physicalInventoryTypeId', 'physicalInventoryDate', 'statusId', 'facilityUrl', 'createdDate', 'lastUpdatedDate'],
    rows: (s) => s.variances.values(),
  },
  inventoryvariancesummary: {
    columns: ['physicalInventoryId', 'physicalInventoryUrl', 'physicalInventoryDate', 'statusId', 'facilityUrl'],
    rows: (s) => s.variances.values(),
  },
  inventoryitem: {
    columns: [
      'inventoryItemId',
      'inventoryItemUrl',
      'productId',
      'productUrl',
      'facilityUrl',
      'quantityOnHand',
      'quantityReserved',
      'quantityOnOrder',
      'lotId',
      'normalizedPackingString',
    ],
    rows: (s) => s.inventory.rows,
  },
};

export function isCollection(name: string): boolean {
  return Object.hasOwn(COLLECTIONS, name);
}

/**
 * Column-major JSON of a collection: `{ column: [cell, ...] }`. Like the real service, trailing empty cells
 * are left out, so columns can be shorter than the longest one.
 */
export function collectionJson(store: SandboxStore, name: string, limit?: number): string {
  const def = COLLECTIONS[name];
  if (!def) throw new Error(`not a collection: ${name}`);
  const hit = limit === undefined ? store.cache.get(name) : undefined;
  if (hit !== undefined) return hit;
  const out: Record<string, unknown[]> = {};
  for (const c of def.columns) out[c] = [];
  let n = 0;
  for (const row of def.rows(store)) {
    if (limit !== undefined && n >= limit) break;
    const r = row as Record<string, unknown>;
    for (const c of def.columns) (out[c] as unknown[]).push(r[c] ?? null);
    n++;
  }
  for (const c of def.columns) {
    const col = out[c] as unknown[];
    let end = col.length;
    while (end > 0 && col[end - 1] === null) end--;
    col.length = end;
  }
  const json = JSON.stringify(out);
  if (limit === undefined) store.cache.set(name, json);
  return json;
}

/** An order's status history, column-major like the collections. */
export function historyJson(entries: ReadonlyArray<{ statusId: string | null; txStamp: number; userLoginUrl: string }>): string {
  return JSON.stringify({
    statusId: entries.map((e) => e.statusId),
    txStamp: entries.map((e) => e.txStamp),
    userLoginUrl: entries.map((e) => e.userLoginUrl),
  });
}
