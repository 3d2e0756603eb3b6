import { mappedNote } from '../../src/catalog/mapped-catalog.js';
import type { CatalogApi, FacilityLookup } from '../../src/catalog/types.js';
import type { CreateOrderBody, CreateShipmentBody } from '../../src/client/answers/schemas.js';
import { canonicalHash } from '../../src/queue/canonical-hash.js';
import { BadRecordError, MissingReferenceError } from '../../src/queue/job-errors.js';
import { refKey, type Reference } from '../../src/queue/wait/reference.js';
import { isPlain, isReturnNotice, type OrderInput, type OrderRecord, type OrderStatus, type PartLine } from './order-record.js';
import { defaultShipmentIdUser, shipmentIdFor } from './shipment-id.js';

/** Units per `productUrl@facilityUrl`: how shipped parts are kept and compared (URLs as the service names them). */
export type Units = Record<string, number>;

/** A fulfillment as a shipment: its name (shipmentIdUser = fulfillmentId), body and units (and their hash). */
export interface PlannedPart {
  id: string;
  shipment: Omit<CreateShipmentBody, 'primaryOrderUrl'>;
  units: Units;
  unitsHash: string;
}

/** A return: one variance per location its restocked lines go to (normally one), dated 19:00 of `day`. */
export interface PlannedReturn {
  id: string;
  restock: boolean;
  /** `returnedAt`'s day; absent: the day it is synced (chosen when its first variance is sent). */
  day?: string;
  variances: Array<{ facilityUrl: string; lines: Array<[productUrl: string, quantity: number]> }>;
}

/**
 * What an order record asks of the service, resolved against the catalog: one plan for every form (docs/orders.md
 * "One machine"). A plain record is the snapshot `fulfilled` with one fulfillment of all its lines; a return notice
 * asks for its returns only.
 */
export interface OrderPlan {
  orderId: string;
  /** A plain record (no life told): the whole order as sold, compared with the service, never edited into it. */
  plain: boolean;
  /** A return notice: returns only, nothing else of the order. */
  notice: boolean;
  /** open, fulfilled or cancelled (a notice has none). */
  status?: OrderStatus;
  updatedAt?: string;
  /** First 16 hex of sha256 of the canonical record (a plain one with its defaults): tells a re-delivery from another record. */
  recordHash: string;
  /** The order as created (absent for a notice). */
  order?: CreateOrderBody;
  /** Hash of the order's items (product, quantity, unit price), as the service should hold them. */
  itemsHash?: string;
  /** Units ordered per productUrl. */
  ordered: Record<string, number>;
  parts: PlannedPart[];
  returns: PlannedReturn[];
  /** productUrl -> productId, to say things in the record's words. */
  productIds: Map<string, string>;
  /** A plain record's order and shipment as the dry run says them, in the record's names (with the service's). */
  said?: { order: string; shipment: string };
}

const round = (n: number) => Math.round(n * 1e6) / 1e6;

/** The record's hash as the job reads it (a plain record with its default shipmentIdUser), without any catalog lookup. */
export function recordHashOf(record: OrderInput): string {
  if (!isPlain(record)) return canonicalHash(record, 16);
  return canonicalHash({ ...record, shipmentIdUser: record.shipmentIdUser ?? defaultShipmentIdUser(record.orderId) }, 16);
}

/** The items' hash: a multiset of (productUrl, quantity, unitPrice), order ignored. */
export function itemsHashOf(items: ReadonlyArray<{ productUrl?: string; quantity?: number; unitPrice?: number }>): string {
  const rows = items.map((i) => `${i.productUrl ?? '?'}|${round(i.quantity ?? 0)}|${round(i.unitPrice ?? 0)}`).sort();
  return canonicalHash(rows, 16);
}

/** The units' hash: what a part's progress keeps of them (first 16 hex of sha256 of `productUrl@facilityUrl=n`, sorted). */
export function unitsHashOf(units: Units): string {
  return canonicalHash(
    Object.entries(units)
      .map(([k, q]) => `${k}=${round(q)}`)
      .sort(),
    16,
  );
}

/** A fulfilled record without fulfillments as the snapshot it always meant: one shipment of all its lines. */
function asSnapshot(record: OrderRecord): OrderRecord {
  if (record.fulfillments || (record.status ?? 'fulfilled') !== 'fulfilled') return record;
  const fulfillmentId = record.shipmentIdUser ?? defaultShipmentIdUser(record.orderId);
  const lines = record.lines.map(({ productId, quantity, location }) => ({ productId, quantity, location }));
  const { shipmentIdUser: _, ...rest } = record;
  return { ...rest, status: 'fulfilled', fulfillments: [{ fulfillmentId, lines }] };
}

/** `name` is shown as the record gives it, with its mapped name when MAPPING_FILE has one. */
function facilityProblem(catalog: CatalogApi, text: string, lookup: FacilityLookup, want: 'magazine' | 'location'): string | undefined {
  const name = `"${text}"${mappedNote(catalog, 'facility', text)}`;
  if (!lookup.ok) {
    if (lookup.reason === 'ambiguous') {
      const which = lookup.candidates?.length ? ` (${lookup.candidates.join(', ')})` : '';
      return `${name} is ambiguous: several facilities have that name${which}; name it as "Magazine / location" or by its facilityUrl`;
    }
    return `${name} is an unknown facility (not in the service's facility collection)`;
  }
  const f = lookup.facility;
  if (f.kind === want) return undefined;
  return want === 'magazine'
    ? `${name} names a location (${f.path}), not a magazine; an order's origin must be a magazine (a facility without a parent)`
    : `${name} names a magazine (${f.path}), not a location; a line's location must be a location inside a magazine`;
}

type Resolved = { products: Map<string, { productUrl: string; productId: string }>; places: Map<string, string> };
type Line = [field: string, line: PartLine];

/**
 * Resolves the products and locations of the given lines, the origin too when given; every problem is named, the
 * first as the BadRecordError's field (`lines.0.productId: "X" is an unknown product`, then `; also ...`).
 */
async function resolve(orderId: string, catalog: CatalogApi, lines: Line[], origin?: string): Promise<Resolved & { origin?: string }> {
  const names = [...new Set(lines.map(([, l]) => l.location))];
  const [products, from, ...looks] = await Promise.all([
    catalog.products([...new Set(lines.map(([, l]) => l.productId))]),
    origin === undefined ? undefined : catalog.facility(origin),
    ...names.map((n) => catalog.facility(n)),
  ]);
  const lookup = new Map(names.map((n, i) => [n, looks[i]!]));
  const problems: string[] = [];
  // What the service lacks, when that is all that is wrong: the order waits for it (src/queue/wait/).
  const missing = new Map<string, Reference>();
  let wrong = false;
  const unknownFacility = (text: string, look: FacilityLookup) => {
    if (!look.ok && look.reason === 'unknown') missing.set(`facility:${text}`, { type: 'facility', name: text });
    else wrong = true;
  };
  const originProblem = from && facilityProblem(catalog, origin!, from, 'magazine');
  if (originProblem) {
    problems.push(`origin: ${originProblem}`);
    unknownFacility(origin!, from);
  }
  const places = new Map<string, string>();
  for (const [field, line] of lines) {
    if (!products.has(line.productId)) {
      problems.push(
        `${field}.productId: "${line.productId}"${mappedNote(catalog, 'product', line.productId)} ` +
          "is an unknown product (not in the service's product collection)",
      );
      const ref: Reference = { type: 'product', name: line.productId };
      missing.set(refKey(ref), ref);
    }
    const look = lookup.get(line.location)!;
    const p = facilityProblem(catalog, line.location, look, 'location');
    if (p) {
      problems.push(`${field}.location: ${p}`);
      unknownFacility(line.location, look);
    } else if (look.ok) places.set(line.location, look.facility.facilityUrl);
  }
  if (problems.length) {
    const [first, ...rest] = problems as [string, ...string[]];
    const at = first.indexOf(': ');
    const [field, reason] = [first.slice(0, at), first.slice(at + 2) + (rest.length ? `; also ${rest.join('; ')}` : '')];
    if (!wrong) throw new MissingReferenceError(orderId, field, reason, [...missing.values()]);
    throw new BadRecordError(orderId, field, reason);
  }
  return { products: products as Resolved['products'], places, ...(from?.ok ? { origin: from.facility.facilityUrl } : {}) };
}

function partUnits(lines: readonly PartLine[], r: Resolved): Units {
  const out: Units = {};
  for (const l of lines) {
    const k = `${r.products.get(l.productId)!.productUrl}@${r.places.get(l.location)!}`;
    out[k] = round((out[k] ?? 0) + l.quantity);
  }
  return out;
}

function planPart(orderId: string, f: { fulfillmentId: string; lines: PartLine[] }, r: Resolved, plain: boolean): PlannedPart {
  // The plain order's one shipment keeps the id it always had; a named part's id is derived from both names.
  const idSource = plain || f.fulfillmentId === defaultShipmentIdUser(orderId) ? orderId : `${orderId}/${f.fulfillmentId}`;
  const units = partUnits(f.lines, r);
  return {
    id: f.fulfillmentId,
    units,
    unitsHash: unitsHashOf(units),
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
      byPlace.set(at, [...(byPlace.get(at) ?? []), [r.products.get(l.productId)!.productUrl, l.quantity]]);
    }
  return {
    id: ret.returnId,
    restock: ret.restock,
    ...(ret.returnedAt ? { day: ret.returnedAt.slice(0, 10) } : {}),
    variances: [...byPlace].map(([facilityUrl, lines]) => ({ facilityUrl, lines })),
  };
}

/** How the dry run names a plain record's order and shipment: "SKU-9 → MUG-BLUE 2 x 3", as the record gives them. */
function plainSaid(record: OrderRecord, catalog: CatalogApi, shipmentIdUser: string): OrderPlan['said'] {
  const shown = (kind: 'product' | 'facility', value: string) => {
    const to = catalog.mapped?.(kind, value);
    return to === undefined || to === value ? value : `${value} → ${to}`;
  };
  const sold = record.lines.map((l) => `${shown('product', l.productId)} ${l.quantity} x ${l.unitPrice}`).join(', ');
  const taken = record.lines.map((l) => `${shown('product', l.productId)} ${l.quantity} from ${shown('facility', l.location)}`).join(', ');
  return {
    order: `create the order from ${shown('facility', record.origin)}: ${sold}`,
    shipment: `create its shipment ${shipmentIdUser}: ${taken}`,
  };
}

/**
 * Checks a record against the catalog before any write (every product exists, the origin is a magazine, each line's,
 * fulfillment's and return's location is a location) and says what it asks of the service. Throws BadRecordError
 * naming the record, the (first) field and the reason.
 */
export async function planOrder(input: OrderInput, catalog: CatalogApi): Promise<OrderPlan> {
  const plain = isPlain(input);
  const record = isReturnNotice(input) ? input : asSnapshot(input);
  const lines: Line[] = isReturnNotice(record) ? [] : record.lines.map((l, i) => [`lines.${i}`, l]);
  const parts: Line[] = [];
  if (!isReturnNotice(record))
    (record.fulfillments ?? []).forEach((f, i) => f.lines.forEach((l, j) => parts.push([`fulfillments.${i}.lines.${j}`, l])));
  (record.returns ?? []).forEach((r, i) => r.lines.forEach((l, j) => parts.push([`returns.${i}.lines.${j}`, l])));
  // The order's own fields first: a bad line is named as the record gives it, before what its parts repeat.
  const base = isReturnNotice(record) ? undefined : await resolve(record.orderId, catalog, lines, record.origin);
  const r = await resolve(record.orderId, catalog, parts);
  const productIds = new Map<string, string>();
  for (const p of [...(base?.products.values() ?? []), ...r.products.values()]) productIds.set(p.productUrl, p.productId);
  const items = isReturnNotice(record)
    ? []
    : record.lines.map((l) => {
        const p = base!.products.get(l.productId)!;
        // The service's product: under MAPPING_FILE the record's productId is the upstream one.
        return { productId: p.productId, productUrl: p.productUrl, unitPrice: l.unitPrice, quantity: l.quantity };
      });
  const ordered: Record<string, number> = {};
  for (const i of items) ordered[i.productUrl] = round((ordered[i.productUrl] ?? 0) + i.quantity);
  const planned = isReturnNotice(record) ? [] : (record.fulfillments ?? []).map((f) => planPart(record.orderId, f, r, plain));
  return {
    orderId: record.orderId,
    plain,
    notice: isReturnNotice(record),
    ...(isReturnNotice(record) ? {} : { status: record.status ?? 'fulfilled' }),
    ...(record.updatedAt ? { updatedAt: record.updatedAt } : {}),
    recordHash: recordHashOf(input),
    ...(isReturnNotice(record)
      ? {}
      : {
          order: {
            orderId: record.orderId,
            orderTypeId: 'SALES_ORDER',
            originFacilityUrl: base!.origin ?? '',
            ...(record.orderDate ? { orderDate: record.orderDate } : {}),
            orderItemList: items,
          },
          itemsHash: itemsHashOf(items),
        }),
    ordered,
    parts: planned,
    returns: (record.returns ?? []).map((ret) => planReturn(ret, r)),
    productIds,
    ...(plain ? { said: plainSaid(input, catalog, planned[0]!.id) } : {}),
  };
}
