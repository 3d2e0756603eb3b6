import { mappedNote } from '../../src/catalog/mapped-catalog.js';
import type { CatalogApi } from '../../src/catalog/types.js';
import type { CreateShipmentBody } from '../../src/client/answers/schemas.js';
import { canonicalHash } from '../../src/queue/canonical-hash.js';
import { BadRecordError } from '../../src/queue/job-errors.js';
import { facilityProblem, planOrder, type OrderPlan } from './order-plan.js';
import { isReturnNotice, type OrderInput, type OrderRecord, type OrderStatus, type PartLine } from './order-record.js';
import { defaultShipmentIdUser, shipmentIdFor } from './shipment-id.js';

/** Units per `productUrl@facilityUrl`: how shipped parts are kept and compared (URLs as the service names them). */
export type Units = Record<string, number>;

/** A fulfillment as a shipment: its name (shipmentIdUser = fulfillmentId), body and units. */
export interface PlannedPart {
  id: string;
  shipment: Omit<CreateShipmentBody, 'primaryOrderUrl'>;
  units: Units;
}

/** A return: one variance per location its restocked lines go to (normally one), dated 19:00 of `day`. */
export interface PlannedReturn {
  id: string;
  restock: boolean;
  /** `returnedAt`'s day; absent: the day it is synced (chosen when its first variance is sent). */
  day?: string;
  variances: Array<{ facilityUrl: string; lines: Array<[productUrl: string, quantity: number]> }>;
}

/** What a snapshot (or a return notice) asks of the service, resolved against the catalog. */
export interface LifePlan {
  orderId: string;
  /** A return notice: returns only, nothing else of the order. */
  notice: boolean;
  /** open, fulfilled or cancelled (a notice has none). */
  status?: OrderStatus;
  updatedAt?: string;
  recordHash: string;
  /** The order as created (absent for a notice). */
  order?: OrderPlan['order'];
  /** Hash of the order's items (product, quantity, unit price), as the service should hold them. */
  itemsHash?: string;
  /** Units ordered per productUrl. */
  ordered: Record<string, number>;
  parts: PlannedPart[];
  returns: PlannedReturn[];
  /** productUrl -> productId and facilityUrl -> name, to say things in the record's words. */
  names: Map<string, string>;
}

const round = (n: number) => Math.round(n * 1e6) / 1e6;

/** The items' hash: a multiset of (productUrl, quantity, unitPrice), order ignored. */
export function itemsHashOf(items: ReadonlyArray<{ productUrl?: string; quantity?: number; unitPrice?: number }>): string {
  const rows = items.map((i) => `${i.productUrl ?? '?'}|${round(i.quantity ?? 0)}|${round(i.unitPrice ?? 0)}`).sort();
  return canonicalHash(rows, 16);
}

/** A plain record (no life told) as the snapshot it always meant: fulfilled, one shipment of all its lines. */
export function asSnapshot(record: OrderRecord): OrderRecord {
  if (record.fulfillments || (record.status ?? 'fulfilled') !== 'fulfilled') return record;
  const fulfillmentId = record.shipmentIdUser ?? defaultShipmentIdUser(record.orderId);
  const lines = record.lines.map(({ productId, quantity, location }) => ({ productId, quantity, location }));
  const { shipmentIdUser: _, ...rest } = record;
  return { ...rest, status: 'fulfilled', fulfillments: [{ fulfillmentId, lines }] };
}

type Resolved = { products: Map<string, { productUrl: string; productId: string }>; places: Map<string, string> };

/** Resolves the parts' products and locations; a problem throws BadRecordError naming the field. */
async function resolveParts(record: OrderInput, catalog: CatalogApi): Promise<Resolved> {
  const fields: Array<[field: string, line: PartLine]> = [];
  if (!isReturnNotice(record))
    (record.fulfillments ?? []).forEach((f, i) => f.lines.forEach((l, j) => fields.push([`fulfillments.${i}.lines.${j}`, l])));
  (record.returns ?? []).forEach((r, i) => r.lines.forEach((l, j) => fields.push([`returns.${i}.lines.${j}`, l])));
  const names = [...new Set(fields.map(([, l]) => l.location))];
  const [products, ...looks] = await Promise.all([
    catalog.products([...new Set(fields.map(([, l]) => l.productId))]),
    ...names.map((n) => catalog.facility(n)),
  ]);
  const lookup = new Map(names.map((n, i) => [n, looks[i]!]));
  const problems: string[] = [];
  const places = new Map<string, string>();
  for (const [field, line] of fields) {
    if (!products.has(line.productId))
      problems.push(
        `${field}.productId: "${line.productId}"${mappedNote(catalog, 'product', line.productId)} ` +
          "is an unknown product (not in the service's product collection)",
      );
    const look = lookup.get(line.location)!;
    const p = facilityProblem(catalog, line.location, look, 'location');
    if (p) problems.push(`${field}.location: ${p}`);
    else if (look.ok) places.set(line.location, look.facility.facilityUrl);
  }
  if (problems.length) {
    const [first, ...rest] = problems as [string, ...string[]];
    const at = first.indexOf(': ');
    throw new BadRecordError(record.orderId, first.slice(0, at), first.slice(at + 2) + (rest.length ? `; also ${rest.join('; ')}` : ''));
  }
  return { products: products as Resolved['products'], places };
}

function partUnits(lines: readonly PartLine[], r: Resolved): Units {
  const out: Units = {};
  for (const l of lines) {
    const k = `${r.products.get(l.productId)!.productUrl}@${r.places.get(l.location)!}`;
    out[k] = round((out[k] ?? 0) + l.quantity);
  }
  return out;
}

function planPart(orderId: string, f: { fulfillmentId: string; lines: PartLine[] }, r: Resolved): PlannedPart {
  // The plain order's one shipment keeps the id it always had; a named part's id is derived from both names.
  const idSource = f.fulfillmentId === defaultShipmentIdUser(orderId) ? orderId : `${orderId}/${f.fulfillmentId}`;
  return {
    id: f.fulfillmentId,
    units: partUnits(f.lines, r),
    shipment: {
      shipmentId: shipmentIdFor(idSource),
      shipmentIdUser: f.fulfillmentId,
      shipmentTypeId: 'SALES_SHIPMENT',
      statusId: 'SHIPMENT_INPUT',
      shipmentItemList: f.lines.map((l) => {
        const p = r.products.get(l.productId)!;
        return { facilityUrl: r.places.get(l.location)!, productId: p.productId, productUrl: p.productUrl, quantity: l.quantity };
      }),
    },
  };
}

function planReturn(ret: NonNullable<OrderInput['returns']>[number], r: Resolved): PlannedReturn {
  const byPlace = new Map<string, Array<[string, number]>>();
  if (ret.restock)
    for (const l of ret.lines) {
      const at = r.places.get(l.location)!;
      const list = byPlace.get(at) ?? [];
      list.push([r.products.get(l.productId)!.productUrl, l.quantity]);
      byPlace.set(at, list);
    }
  return {
    id: ret.returnId,
    restock: ret.restock,
    ...(ret.returnedAt ? { day: ret.returnedAt.slice(0, 10) } : {}),
    variances: [...byPlace].map(([facilityUrl, lines]) => ({ facilityUrl, lines })),
  };
}

/**
 * Checks a snapshot against the catalog before any write (the order as planOrder checks it, and every part's
 * products and locations) and says what it asks of the service. Throws BadRecordError naming the field.
 */
export async function planLife(input: OrderInput, catalog: CatalogApi): Promise<LifePlan> {
  const record = isReturnNotice(input) ? input : asSnapshot(input);
  const base = isReturnNotice(record) ? undefined : await planOrder(record, catalog);
  const resolved = await resolveParts(record, catalog);
  const names = new Map<string, string>(base?.productIds ?? []);
  for (const p of resolved.products.values()) names.set(p.productUrl, p.productId);
  for (const [name, url] of resolved.places) names.set(url, name);
  const ordered: Record<string, number> = {};
  for (const i of base?.order.orderItemList ?? []) ordered[i.productUrl] = round((ordered[i.productUrl] ?? 0) + i.quantity);
  return {
    orderId: record.orderId,
    notice: !base,
    ...(isReturnNotice(record) ? {} : { status: record.status ?? 'fulfilled' }),
    ...(record.updatedAt ? { updatedAt: record.updatedAt } : {}),
    recordHash: canonicalHash(input, 16),
    ...(base ? { order: base.order, itemsHash: itemsHashOf(base.order.orderItemList) } : {}),
    ordered,
    parts: isReturnNotice(record) ? [] : (record.fulfillments ?? []).map((f) => planPart(record.orderId, f, resolved)),
    returns: (record.returns ?? []).map((ret) => planReturn(ret, resolved)),
    names,
  };
}
