import { readFileSync } from 'node:fs';
import { type z } from 'zod';
import { demoData } from './demo-data.js';
import type { InventoryRow, OrderState, ProductEntity, SandboxState, ShipmentEntity, VarianceEntity } from './sandbox-entities.js';
import { issuesText } from './validation.js';
import { sandboxDataSchema, type SandboxData } from './sandbox-data-schema.js';

/** Turns a data source into the sandbox's state, with URLs on `account` (default: the data's own). */
export function loadSandboxData(source: 'demo' | 'empty' | string | SandboxData, account?: string): SandboxState {
  let raw: unknown;
  let origin: string;
  if (source === 'demo') [raw, origin] = [demoData(account), 'demo data'];
  else if (source === 'empty') [raw, origin] = [{ account: account ?? 'demo' }, 'empty data'];
  else if (typeof source === 'string') {
    origin = source;
    try {
      raw = JSON.parse(readFileSync(source, 'utf8'));
    } catch (err) {
      throw new Error(`sandbox data ${source}: cannot read it as JSON (${(err as Error).message})`);
    }
  } else [raw, origin] = [source, 'sandbox data'];
  const parsed = sandboxDataSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`${origin}: ${issuesText(parsed.error.issues)}`);
  let data = parsed.data;
  if (account && account !== data.account) data = rebase(data, data.account, account);
  return complete(data, origin);
}

/** Rewrites every /{from}/api/ URL to /{to}/api/. */
function rebase<T>(value: T, from: string, to: string): T {
  const prefix = `/${from}/api/`;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return v.startsWith(prefix) ? `/${to}/api/${v.slice(prefix.length)}` : v;
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  const out = walk(value) as T & { account: string };
  out.account = to;
  return out;
}

type Parsed = z.output<typeof sandboxDataSchema>;

/** Fills derived URLs and ids, and checks that references resolve. */
function complete(d: Parsed, origin: string): SandboxState {
  const api = `/${d.account}/api`;
  const fail = (where: string, why: string) => new Error(`${origin}: ${where}: ${why}`);
  const facilities = d.facilities.map((f) => ({
    facilityId: f.facilityId,
    facilityUrl: f.facilityUrl ?? `${api}/facility/${encodeURIComponent(f.facilityId)}`,
    facilityName: f.facilityName,
    parentFacilityUrl: f.parentFacilityUrl ?? null,
    facilityTypeId: f.facilityTypeId ?? (f.parentFacilityUrl ? 'LOCATION' : 'WAREHOUSE'),
    statusId: f.statusId ?? 'FACILITY_ACTIVE',
  }));
  const facilityUrls = new Set(facilities.map((f) => f.facilityUrl));
  facilities.forEach((f, i) => {
    if (f.parentFacilityUrl && !facilityUrls.has(f.parentFacilityUrl))
      throw fail(`facilities[${i}].parentFacilityUrl`, `no facility ${f.parentFacilityUrl}`);
  });
  let assocSeq = 10000;
  const products: ProductEntity[] = d.products.map((p) => ({
    productId: p.productId,
    productUrl: p.productUrl ?? `${api}/product/${encodeURIComponent(p.productId)}`,
    internalName: p.internalName ?? null,
    statusId: p.statusId ?? 'PRODUCT_ACTIVE',
    productTypeId: p.productTypeId ?? 'FINISHED_GOOD',
    productAssocList: p.productAssocList.map((a) => ({
      productAssocTypeId: a.productAssocTypeId,
      productAssocUrl: a.productAssocUrl ?? '',
      productAssocItemList: a.productAssocItemList.map((it) => ({ productUrl: it.productUrl, quantity: it.quantity })),
    })),
  }));
  for (const p of products) for (const a of p.productAssocList) assocSeq = Math.max(assocSeq, idNumber(a.productAssocUrl) + 1);
  const byUrl = new Map(products.map((p) => [p.productUrl, p]));
  products.forEach((p, i) =>
    p.productAssocList.forEach((a, j) => {
      if (!a.productAssocUrl) a.productAssocUrl = `${api}/productassoc/${assocSeq++}`;
      a.productAssocItemList.forEach((it, k) => {
        if (!byUrl.has(it.productUrl))
          throw fail(`products[${i}].productAssocList[${j}].productAssocItemList[${k}].productUrl`, `no product ${it.productUrl}`);
      });
    }),
  );
  let itemSeq = 10000;
  for (const r of d.inventory) if (r.inventoryItemId) itemSeq = Math.max(itemSeq, Number(r.inventoryItemId) + 1 || 0);
  const inventory: InventoryRow[] = d.inventory.map((r, i) => {
    const product = byUrl.get(r.productUrl);
    if (!product) throw fail(`inventory[${i}].productUrl`, `no product ${r.productUrl}`);
    if (!facilityUrls.has(r.facilityUrl)) throw fail(`inventory[${i}].facilityUrl`, `no facility ${r.facilityUrl}`);
    const id = r.inventoryItemId ?? String(itemSeq++);
    return {
      inventoryItemId: id,
      inventoryItemUrl: `${api}/inventoryitem/${encodeURIComponent(id)}`,
      facilityUrl: r.facilityUrl,
      productId: product.productId,
      productUrl: r.productUrl,
      quantityOnHand: r.quantityOnHand,
      quantityReserved: r.quantityReserved ?? 0,
      quantityOnOrder: r.quantityOnOrder ?? 0,
      lotId: r.lotId ?? null,
      normalizedPackingString: r.normalizedPackingString ?? null,
    };
  });
  return {
    account: d.account,
    facilities,
    products,
    // A dump made before orders kept actionUrlEdit gets it.
    orders: d.orders.map((o) => ({ ...lists(ORDER_LISTS), actionUrlEdit: `${o.orderUrl}/edit`, ...o }) as unknown as OrderState),
    shipments: d.shipments.map((x) => ({ ...lists(SHIPMENT_LISTS), ...x }) as unknown as ShipmentEntity),
    variances: d.variances.map((x) => ({ ...lists(VARIANCE_LISTS), ...x }) as unknown as VarianceEntity),
    inventory,
  };
}

const ORDER_LISTS = [
  'orderItemList',
  'orderAdjustmentList',
  'orderRoleList',
  'contentList',
  'userFieldDataList',
  'shipmentUrlList',
  'statusIdHistoryList',
];
const SHIPMENT_LISTS = ['shipmentItemList', 'statusIdHistoryList', 'userFieldDataList', 'contentList', 'transferList'];
const VARIANCE_LISTS = ['inventoryItemVarianceList', 'statusIdHistoryList', 'contentList'];

/** Empty lists for the list fields an entity written by hand may leave out. */
function lists(names: string[]): Record<string, unknown[]> {
  return Object.fromEntries(names.map((n) => [n, []]));
}

/** The trailing number of an id URL, or 0. */
export function idNumber(url: string): number {
  const m = /(\d+)$/.exec(url);
  return m ? Number(m[1]) : 0;
}
