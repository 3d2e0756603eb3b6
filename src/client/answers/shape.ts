import type { ZodType } from 'zod';
import { zodProblemText, type IssueLike } from '../../errors/zod-problems.js';
import { decodeColumns } from './columns.js';
import {
  facilityRowSchema,
  inventoryItemRowSchema,
  orderCreatedSchema,
  orderReadSchema,
  orderSchema,
  productRowSchema,
  productSchema,
  shipmentCreatedSchema,
  shipmentReadSchema,
  shipmentSchema,
  varianceSchema,
  type FacilityRow,
  type InventoryItemRow,
  type ProductRow,
} from './schemas.js';

/** Turns a parsed JSON answer into the value a call promises; throws ShapeError when it cannot. */
export type Decoder<T> = (json: unknown) => T;

/** An answer that does not have the shape its call expects; the message says `path: problem` per issue. */
export class ShapeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ShapeError';
  }
}

const MAX_ISSUES = 3;

// zod's "expected string, received undefined" says less than "is missing" to whoever reads the job.
function issuesText(issues: readonly IssueLike[], under = ''): string {
  return zodProblemText(issues, { whole: '(body)', under, missing: 'is missing', isNull: 'is null', max: MAX_ISSUES, countMore: true });
}

/** An entity answer checked by its zod schema. */
export function shapeDecoder<T>(schema: ZodType<T>): Decoder<T> {
  return (json) => {
    const r = schema.safeParse(json);
    if (!r.success) throw new ShapeError(issuesText(r.error.issues));
    return r.data;
  };
}

/** A column-major collection answer decoded into rows, each checked by its zod schema. */
export function rowsDecoder<T>(schema: ZodType<T>): Decoder<T[]> {
  return (json) => {
    const rows = decodeColumns(json);
    const out: T[] = new Array(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const r = schema.safeParse(rows[i]);
      if (!r.success) throw new ShapeError(issuesText(r.error.issues, `row ${i}: `));
      out[i] = r.data;
    }
    return out;
  };
}

/** The decoders of the client's calls, built once. */
export const decoders = {
  order: shapeDecoder(orderSchema),
  orderCreated: shapeDecoder(orderCreatedSchema),
  orderRead: shapeDecoder(orderReadSchema),
  shipment: shapeDecoder(shipmentSchema),
  shipmentCreated: shapeDecoder(shipmentCreatedSchema),
  shipmentRead: shapeDecoder(shipmentReadSchema),
  product: shapeDecoder(productSchema),
  variance: shapeDecoder(varianceSchema),
  anyRows: ((json) => decodeColumns(json)) as Decoder<Record<string, unknown>[]>,
  facilityRows: rowsDecoder(facilityRowSchema as ZodType<FacilityRow>),
  productRows: rowsDecoder(productRowSchema as ZodType<ProductRow>),
  inventoryRows: rowsDecoder(inventoryItemRowSchema as ZodType<InventoryItemRow>),
};
