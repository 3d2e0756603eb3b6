import { mappedNote } from '../../src/catalog/mapped-catalog.js';
import type { CatalogApi, FacilityLookup } from '../../src/catalog/types.js';
import type { CreateOrderBody, CreateShipmentBody } from '../../src/client/answers/schemas.js';
import type { OrderRecord } from './order-record.js';
import { canonicalHash } from '../../src/queue/canonical-hash.js';
import { BadRecordError } from '../../src/queue/job-errors.js';
import { defaultShipmentIdUser, shipmentIdFor } from './shipment-id.js';

/** What an order record asks of the service, resolved against the catalog. */
export interface OrderPlan {
  orderId: string;
  shipmentId: string;
  shipmentIdUser: string;
  /** sha256 (first 16 hex) of the canonical record: tells a re-delivery from a corrected record. */
  recordHash: string;
  order: CreateOrderBody;
  /** The shipment's body without primaryOrderUrl, which comes from the created order. */
  shipment: Omit<CreateShipmentBody, 'primaryOrderUrl'>;
  /** productUrl -> productId, to name products in differences. */
  productIds: Map<string, string>;
}

/** Hash of the record as the job reads it (defaults applied), without any catalog lookup. */
export function recordHashOf(record: OrderRecord): string {
  const shaped = { ...record, shipmentIdUser: record.shipmentIdUser ?? defaultShipmentIdUser(record.orderId) };
  return canonicalHash(shaped, 16);
}

interface Problem {
  field: string;
  reason: string;
}

/** `name` is shown as the record gives it, with its mapped name when MAPPING_FILE has one. */
export function facilityProblem(
  catalog: CatalogApi,
  text: string,
  lookup: FacilityLookup,
  want: 'magazine' | 'location',
): string | undefined {
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

/**
 * Checks the record against the catalog before any write: every product exists, the origin is a magazine,
 * each line's location is a location. Throws BadRecordError naming the record, the (first) field and the reason.
 */
export async function planOrder(record: OrderRecord, catalog: CatalogApi): Promise<OrderPlan> {
  const locationNames = [...new Set(record.lines.map((l) => l.location))];
  const [products, origin, ...locations] = await Promise.all([
    catalog.products(record.lines.map((l) => l.productId)),
    catalog.facility(record.origin),
    ...locationNames.map((n) => catalog.facility(n)),
  ]);
  const locationBy = new Map(locationNames.map((n, i) => [n, locations[i]!]));

  const problems: Problem[] = [];
  const originProblem = facilityProblem(catalog, record.origin, origin, 'magazine');
  if (originProblem) problems.push({ field: 'origin', reason: originProblem });
  record.lines.forEach((line, i) => {
    if (!products.has(line.productId)) {
      const shown = `"${line.productId}"${mappedNote(catalog, 'product', line.productId)}`;
      problems.push({ field: `lines.${i}.productId`, reason: `${shown} is an unknown product (not in the service's product collection)` });
    }
    const p = facilityProblem(catalog, line.location, locationBy.get(line.location)!, 'location');
    if (p) problems.push({ field: `lines.${i}.location`, reason: p });
  });
  if (problems.length) {
    const [first, ...rest] = problems as [Problem, ...Problem[]];
    const more = rest.length ? `; also ${rest.map((p) => `${p.field}: ${p.reason}`).join('; ')}` : '';
    throw new BadRecordError(record.orderId, first.field, first.reason + more);
  }

  const productIds = new Map<string, string>();
  const lines = record.lines.map((line) => {
    const product = products.get(line.productId)!;
    productIds.set(product.productUrl, product.productId);
    const at = locationBy.get(line.location)!;
    // The service's product: under MAPPING_FILE the record's productId is the upstream one.
    return { line, productId: product.productId, productUrl: product.productUrl, facilityUrl: at.ok ? at.facility.facilityUrl : '' };
  });
  const originUrl = origin.ok ? origin.facility.facilityUrl : '';
  const shipmentIdUser = record.shipmentIdUser ?? defaultShipmentIdUser(record.orderId);
  return {
    orderId: record.orderId,
    shipmentId: shipmentIdFor(record.orderId),
    shipmentIdUser,
    recordHash: recordHashOf(record),
    productIds,
    order: {
      orderId: record.orderId,
      orderTypeId: 'SALES_ORDER',
      originFacilityUrl: originUrl,
      ...(record.orderDate ? { orderDate: record.orderDate } : {}),
      orderItemList: lines.map(({ line, productId, productUrl }) => ({
        productId,
        productUrl,
        unitPrice: line.unitPrice,
        quantity: line.quantity,
      })),
    },
    shipment: {
      shipmentId: shipmentIdFor(record.orderId),
      shipmentIdUser,
      shipmentTypeId: 'SALES_SHIPMENT',
      statusId: 'SHIPMENT_INPUT',
      shipmentItemList: lines.map(({ line, productId, productUrl, facilityUrl }) => ({
        facilityUrl,
        productId,
        productUrl,
        quantity: line.quantity,
      })),
    },
  };
}
