import { z } from 'zod';

/**
 * Entities of docs/service.md "Entities", read liberally (docs/service.md, "Null and absent
 * fields"): a field is required only where every use of the answer needs it; anything else may be null or
 * absent (null reads as absent); ids may be JSON numbers (read as strings); side lists may be null (read as
 * empty). What one step needs beyond this is asked by its own decoder (`orderRead`, `shipmentCreated`, ...).
 */

const url = z.string().min(1);
const dateTime = z.string();
/** An id the service answers as a string or a JSON number (`"shipmentId": 328966`); always a string here. */
export const idSchema = z.union([z.string(), z.number().transform(String)]);
/** Null and absence alike read as absent. */
const opt = <T extends z.ZodType>(s: T) => z.preprocess((v) => (v === null ? undefined : v), s.optional());
/** A side list: null or absent read as empty. */
const list = <T extends z.ZodType>(item: T) => z.preprocess((v) => v ?? [], z.array(item));

const statusHistoryEntry = z.looseObject({
  statusId: opt(z.string()),
  // Epoch seconds in every public sample, ms in the spec's examples: never relied on.
  txStamp: opt(z.number()),
  userLoginUrl: opt(z.string()),
});

export const orderItemSchema = z.looseObject({
  orderItemUrl: opt(url),
  reserveUrl: opt(url),
  productId: opt(idSchema),
  productUrl: opt(url),
  unitPrice: opt(z.number()),
  quantity: opt(z.number()),
});

export const orderSchema = z.looseObject({
  orderId: opt(idSchema),
  orderUrl: opt(url),
  orderTypeId: opt(z.string()),
  statusId: opt(z.string()),
  originFacilityUrl: opt(url),
  orderDate: opt(dateTime),
  createdDate: opt(dateTime),
  lastUpdatedDate: opt(dateTime),
  // Action URLs are there only while the action is valid (null on a completed order).
  actionUrlComplete: opt(url),
  actionUrlLock: opt(url),
  actionUrlCancel: opt(url),
  actionUrlEdit: opt(url),
  orderItemList: list(orderItemSchema),
  orderItemListTotal: opt(z.number()),
  /** null reads as [] (no shipment); absent stays undefined: the answer does not say (see shipmentUrlsOf). */
  shipmentUrlList: z.preprocess((v) => (v === null ? [] : v), z.array(url).optional()),
  invalidations: opt(z.array(z.string())),
});

export const shipmentItemSchema = z.looseObject({
  facilityUrl: opt(url),
  productId: opt(idSchema),
  productUrl: opt(url),
  quantity: opt(z.number()),
});

export const shipmentSchema = z.looseObject({
  shipmentId: opt(idSchema),
  shipmentIdUser: opt(z.string()),
  shipmentUrl: opt(url),
  shipmentTypeId: opt(z.string()),
  primaryOrderUrl: opt(url),
  statusId: opt(z.string()),
  // Null once shipped (docs/service.md): never needed, the ship step posts to shipmentUrl.
  actionUrlShip: opt(url),
  actionUrlCancel: opt(url),
  shipmentItemList: list(shipmentItemSchema),
  statusIdHistoryList: opt(z.array(statusHistoryEntry)),
  invalidations: opt(z.array(z.string())),
});

export const varianceItemSchema = z.looseObject({
  facilityUrl: opt(url),
  productUrl: opt(url),
  productId: opt(idSchema),
  quantityOnHandVar: opt(z.number()),
});

export const varianceSchema = z.looseObject({
  physicalInventoryId: opt(idSchema),
  physicalInventoryUrl: url,
  physicalInventoryTypeId: opt(z.string()),
  physicalInventoryDate: opt(dateTime),
  statusId: opt(z.string()),
  facilityUrl: opt(url),
  createdDate: opt(dateTime),
  inventoryItemVarianceList: list(varianceItemSchema),
  invalidations: opt(z.array(z.string())),
});

export const productAssocItemSchema = z.looseObject({ productUrl: opt(url), quantity: opt(z.number()) });

export const productAssocSchema = z.looseObject({
  productAssocTypeId: opt(z.string()),
  productAssocUrl: opt(url),
  productAssocItemList: list(productAssocItemSchema),
});

export const productSchema = z.looseObject({
  productId: opt(idSchema),
  productUrl: opt(url),
  internalName: opt(z.string()),
  statusId: opt(z.string()),
  productAssocList: list(productAssocSchema),
  invalidations: opt(z.array(z.string())),
});

// What one step needs of an answer, beyond the entity's shape.

/** Create order: the order's URL, which every later step uses. */
export const orderCreatedSchema = orderSchema.extend({ orderUrl: url });
/** A read of an order (settling, read-back): its URL and its status. */
export const orderReadSchema = orderSchema.extend({ orderUrl: url, statusId: z.string() });
/** Create shipment: the shipment's URL, which the ship step posts to. */
export const shipmentCreatedSchema = shipmentSchema.extend({ shipmentUrl: url });
/** A read of a shipment: its status (shipped or not). */
export const shipmentReadSchema = shipmentSchema.extend({ statusId: z.string() });

/** Rows of collection GETs (decoded from column-major answers). Rows may omit fields. */
export const facilityRowSchema = z.looseObject({
  facilityId: opt(idSchema),
  facilityUrl: url,
  facilityName: opt(z.string()),
  parentFacilityUrl: opt(z.string()),
  statusId: opt(z.string()),
});

export const productRowSchema = z.looseObject({
  productId: idSchema,
  productUrl: url,
  internalName: opt(z.string()),
  statusId: opt(z.string()),
});

export const inventoryItemRowSchema = z.looseObject({
  productId: opt(idSchema),
  productUrl: url,
  facilityUrl: url,
  quantityOnHand: opt(z.number()),
  quantityReserved: opt(z.number()),
  quantityOnOrder: opt(z.number()),
  lotId: opt(idSchema),
  normalizedPackingString: opt(z.string()),
});

export type Order = z.infer<typeof orderSchema>;
export type OrderItem = z.infer<typeof orderItemSchema>;
export type Shipment = z.infer<typeof shipmentSchema>;
export type CreatedOrder = z.infer<typeof orderCreatedSchema>;
export type ReadOrder = z.infer<typeof orderReadSchema>;
export type CreatedShipment = z.infer<typeof shipmentCreatedSchema>;
export type ReadShipment = z.infer<typeof shipmentReadSchema>;
export type ShipmentItem = z.infer<typeof shipmentItemSchema>;
export type InventoryVariance = z.infer<typeof varianceSchema>;
export type Product = z.infer<typeof productSchema>;
export type ProductAssoc = z.infer<typeof productAssocSchema>;
export type FacilityRow = z.infer<typeof facilityRowSchema>;
export type ProductRow = z.infer<typeof productRowSchema>;
export type InventoryItemRow = z.infer<typeof inventoryItemRowSchema>;

/** Request bodies (docs/service.md "Calls the program makes"). */
export interface CreateOrderBody {
  orderId: string;
  orderTypeId: 'SALES_ORDER';
  originFacilityUrl: string;
  orderDate?: string;
  orderItemList: Array<{ productId: string; productUrl: string; unitPrice: number; quantity: number }>;
}

/** A POST to an order's URL that changes its items (the list sent replaces the order's). */
export interface ModifyOrderItemsBody {
  orderItemList: Array<{ orderItemUrl?: string; productId: string; productUrl: string; unitPrice: number; quantity: number }>;
}

export interface CreateShipmentBody {
  shipmentId?: string;
  shipmentIdUser?: string;
  shipmentTypeId: 'SALES_SHIPMENT';
  primaryOrderUrl: string;
  statusId: 'SHIPMENT_INPUT';
  shipmentItemList: Array<{ facilityUrl: string; productId: string; productUrl: string; quantity: number }>;
}

export interface CreateVarianceBody {
  physicalInventoryDate: string;
  statusId: 'PHSCL_INV_COMMITTED';
  physicalInventoryTypeId: 'FACILITY';
  facilityUrl: string;
  inventoryItemVarianceList: Array<{ facilityUrl: string; productUrl: string; quantityOnHandVar: number }>;
}

export interface UpdateProductBody {
  productId: string;
  productUrl: string;
  productAssocList: Array<{
    productAssocTypeId: 'MANUF_COMPONENT';
    productAssocUrl?: string;
    productAssocItemList: Array<{ productUrl: string; quantity: number }>;
  }>;
}
