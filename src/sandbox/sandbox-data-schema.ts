import { z } from 'zod';

const assocSchema = z.object({
  productAssocTypeId: z.string().default('MANUF_COMPONENT'),
  productAssocUrl: z.string().optional(),
  productAssocItemList: z.array(z.object({ productUrl: z.string().min(1), quantity: z.number() })).default([]),
});

/** A data file: the shape of `admin.state()`; URLs and ids the sandbox can derive may be left out. */
export const sandboxDataSchema = z.object({
  account: z
    .string()
    .min(1)
    .regex(/^[^/?#\s]+$/, 'must be one path segment')
    .default('demo'),
  facilities: z
    .array(
      z.object({
        facilityId: z.string().min(1),
        facilityUrl: z.string().optional(),
        facilityName: z.string(),
        parentFacilityUrl: z.string().nullish(),
        facilityTypeId: z.string().optional(),
        statusId: z.string().optional(),
      }),
    )
    .default([]),
  products: z
    .array(
      z.object({
        productId: z.string().min(1),
        productUrl: z.string().optional(),
        internalName: z.string().nullish(),
        statusId: z.string().optional(),
        productTypeId: z.string().optional(),
        productAssocList: z.array(assocSchema).default([]),
      }),
    )
    .default([]),
  inventory: z
    .array(
      z.object({
        inventoryItemId: z.string().optional(),
        facilityUrl: z.string(),
        productUrl: z.string(),
        quantityOnHand: z.number(),
        quantityReserved: z.number().optional(),
        quantityOnOrder: z.number().optional(),
        lotId: z.string().nullish(),
        normalizedPackingString: z.string().nullish(),
      }),
    )
    .default([]),
  // Written by state(); kept as dumped, checked only for the fields the sandbox indexes on.
  orders: z.array(z.looseObject({ orderId: z.string().min(1), orderUrl: z.string(), statusId: z.string() })).default([]),
  shipments: z.array(z.looseObject({ shipmentId: z.string().min(1), shipmentUrl: z.string(), statusId: z.string() })).default([]),
  variances: z.array(z.looseObject({ physicalInventoryId: z.string().min(1), physicalInventoryUrl: z.string() })).default([]),
});

/** Input form of a data set (what a JSON file or `demoData()` holds). */
export type SandboxData = z.input<typeof sandboxDataSchema>;
