import { z } from 'zod';

/** Entities of service-spec.md section 2, tolerant of fields the spec does not show. */

const url = z.string().min(1);
const dateTime = z.string();
const statusHistoryEntry = z.looseObject({
  statusId: z.string().nullable(),
  txStamp: z.number(),
  userLoginUrl: z.string().optional(),
});

export const orderItemSchema = z.looseObject({
  orderItemUrl: url.optional(),
  reserveUrl: url.optional(),
  productId: z.string(),
  productUrl: url,
  unitPrice: z.number(),
  quantity: z.number(),
});

export const orderSchema = z.looseObject({
  orderId: z.string(),
  orderUrl: url,
  orderTypeId: z.string().optional(),
  statusId: z.string(),
  originFacilityUrl: url.optional(),
  orderDate: dateTime.optional(),
  createdDate: dateTime.optional(),
  lastUpdatedDate: dateTime.optional(),
  actionUrlComplete: url.optional(),
  actionUrlLock: url.optional(),
  actionUrlCancel: url.optional(),
  orderItemList: z.array(orderItemSchema).default([]),
  orderItemListTotal: z.number().optional(),
  shipmentUrlList: z.array(url).optional(),
  invalidations: z.array(z.string()).optional(),
});

export const shipmentItemSchema = z.looseObject({
  facilityUrl: url,
  productId: z.string().optional(),
  productUrl: url,
  quantity: z.number(),
});

export const shipmentSchema = z.looseObject({
  shipmentId: z.string(),
  shipmentIdUser: z.string().nullish(),
  shipmentUrl: url,
  shipmentTypeId: z.string().optional(),
  primaryOrderUrl: url.optional(),
  statusId: z.string(),
  actionUrlShip: url.optional(),
  actionUrlCancel: url.optional(),
  shipmentItemList: z.array(shipmentItemSchema).default([]),
  statusIdHistoryList: z.array(statusHistoryEntry).optional(),
  invalidations: z.array(z.string()).optional(),
});

export const varianceItemSchema = z.looseObject({
  facilityUrl: url.optional(),
  productUrl: url,
  productId: z.string().optional(),
  quantityOnHandVar: z.number(),
});

export const varianceSchema = z.looseObject({
  physicalInventoryId: z.string(),
  physicalInventoryUrl: url,
  physicalInventoryTypeId: z.string().optional(),
  physicalInventoryDate: dateTime,
  statusId: z.string(),
  facilityUrl: url,
  createdDate: dateTime.optional(),
  inventoryItemVarianceList: z.array(varianceItemSchema).default([]),
  invalidations: z.array(z.string()).optional(),
});

export const productAssocItemSchema = z.looseObject({ productUrl: url, quantity: z.number() });

export const productAssocSchema = z.looseObject({
  productAssocTypeId: z.string(),
  productAssocUrl: url.optional(),
  productAssocItemList: z.array(productAssocItemSchema).default([]),
});

export const productSchema = z.looseObject({
  productId: z.string(),
  productUrl: url,
  internalName: z.string().nullish(),
  statusId: z.string().nullish(),
  productAssocList: z.array(productAssocSchema).default([]),
  invalidations: z.array(z.string()).optional(),
});

/** Rows of collection GETs (decoded from column-major answers). Rows may omit fields. */
export const facilityRowSchema = z.looseObject({
  facilityId: z.string().nullish(),
  facilityUrl: url,
  facilityName: z.string().nullish(),
  parentFacilityUrl: z.string().nullish(),
  statusId: z.string().nullish(),
});

export const productRowSchema = z.looseObject({
  productId: z.string(),
  productUrl: url,
  internalName: z.string().nullish(),
  statusId: z.string().nullish(),
});

export const inventoryItemRowSchema = z.looseObject({
  productId: z.string().nullish(),
  productUrl: url,
  facilityUrl: url,
  quantityOnHand: z.number().nullish(),
  quantityReserved: z.number().nullish(),
  quantityOnOrder: z.number().nullish(),
  lotId: z.string().nullish(),
  normalizedPackingString: z.string().nullish(),
});

export type Order = z.infer<typeof orderSchema>;
export type OrderItem = z.infer<typeof orderItemSchema>;
export type Shipment = z.infer<typeof shipmentSchema>;
export type ShipmentItem = z.infer<typeof shipmentItemSchema>;
export type InventoryVariance = z.infer<typeof varianceSchema>;
export type Product = z.infer<typeof productSchema>;
export type ProductAssoc = z.infer<typeof productAssocSchema>;
export type FacilityRow = z.infer<typeof facilityRowSchema>;
export type ProductRow = z.infer<typeof productRowSchema>;
export type InventoryItemRow = z.infer<typeof inventoryItemRowSchema>;

/** Request bodies (service-spec.md section 4). */
export interface CreateOrderBody {
  orderId: string;
  orderTypeId: 'SALES_ORDER';
  originFacilityUrl: string;
  orderDate?: string;
  orderItemList: Array<{ productId: string; productUrl: string; unitPrice: number; quantity: number }>;
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
