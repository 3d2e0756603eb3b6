import { orderView, productView, shipmentView, varianceView } from './answer-views.js';
import type { ProfileRules } from './profile-rules.js';
import type { SandboxStore } from './store.js';

interface CollectionDef {
  columns: readonly string[];
  /** More columns under a profile with rich rows: action URLs and side lists, with their nulls. */
  richColumns?: readonly string[];
  rows(store: SandboxStore): Iterable<object>;
  /** A row as the profile answers it (numeric ids, null actions and lists). */
  view?(rules: ProfileRules, row: never): object;
}

/** The collections a GET on a collection root answers, with their columns (under `spec` rows omit nested lists). */
const COLLECTIONS: Record<string, CollectionDef> = {
  facility: {
    columns: ['facilityId', 'facilityUrl', 'facilityName', 'parentFacilityUrl', 'facilityTypeId', 'statusId'],
    rows: (s) => s.facilities.values(),
  },
  product: {
    columns: ['productId', 'productUrl', 'internalName', 'statusId', 'productTypeId'],
    richColumns: ['productAssocList'],
    rows: (s) => s.products.values(),
    view: productView,
  },
  order: {
    columns: [
      'orderId',
      'orderUrl',
      'orderTypeId',
      'statusId',
      'originFacilityUrl',
      'orderDate',
      'createdDate',
      'lastUpdatedDate',
      'orderItemListTotal',
    ],
    richColumns: [
      'actionUrlLock',
      'actionUrlComplete',
      'actionUrlCancel',
      'actionUrlEdit',
      'shipmentUrlList',
      'orderRoleList',
      'orderAdjustmentList',
      'invoiceUrlList',
    ],
    rows: (s) => s.orders.values(),
    view: orderView,
  },
  ordersummary: {
    columns: ['orderId', 'orderUrl', 'statusId', 'orderDate', 'orderItemListTotal'],
    rows: (s) => s.orders.values(),
  },
  shipment: {
    columns: [
      'shipmentId',
      'shipmentIdUser',
      'shipmentUrl',
      'shipmentTypeId',
      'primaryOrderUrl',
      'statusId',
      'createdDate',
      'lastUpdatedDate',
    ],
    richColumns: [
      'actionUrlShip',
      'actionUrlPack',
      'actionUrlUnpack',
      'actionUrlCancel',
      'actionUrlTransfer',
      'userFieldDataList',
      'contentList',
      'transferList',
    ],
    rows: (s) => s.shipments.values(),
    view: shipmentView,
  },
  inventoryvariance: {
    columns: [
      'physicalInventoryId',
      'physicalInventoryUrl',
      'physicalInventoryTypeId',
      'physicalInventoryDate',
      'statusId',
      'facilityUrl',
      'createdDate',
      'lastUpdatedDate',
    ],
    rows: (s) => s.variances.values(),
    view: varianceView,
  },
  inventoryvariancesummary: {
    columns: ['physicalInventoryId', 'physicalInventoryUrl', 'physicalInventoryDate', 'statusId', 'facilityUrl'],
    rows: (s) => s.variances.values(),
    view: varianceView,
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
    rows: (s) => s.inventory.allRows(),
  },
};

export function isCollection(name: string): boolean {
  return Object.hasOwn(COLLECTIONS, name);
}

/**
 * Column-major JSON of a collection: `{ column: [cell, ...] }`, rows as the profile answers them. Like the real
 * service, trailing empty cells are left out, so columns can be shorter than the longest one.
 */
export function collectionJson(store: SandboxStore, rules: ProfileRules, name: string, limit?: number): string {
  const def = COLLECTIONS[name];
  if (!def) throw new Error(`not a collection: ${name}`);
  const hit = limit === undefined ? store.cache.get(name) : undefined;
  if (hit !== undefined) return hit;
  const columns = rules.richRows && def.richColumns ? [...def.columns, ...def.richColumns] : def.columns;
  const view = rules.name === 'spec' ? undefined : def.view;
  const out: Record<string, unknown[]> = {};
  for (const c of columns) out[c] = [];
  let n = 0;
  for (const row of def.rows(store)) {
    if (limit !== undefined && n >= limit) break;
    const r = (view ? view(rules, row as never) : row) as Record<string, unknown>;
    for (const c of columns) (out[c] as unknown[]).push(r[c] ?? null);
    n++;
  }
  for (const c of columns) {
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
