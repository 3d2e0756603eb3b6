import type { StreamDef } from '../../src/records/stream-def.js';
import { orderReferences } from './order-references.js';
import { orderRecordSchema } from './order-record.js';
import { shopifyOrdersFulfilled } from './transforms/shopify-orders-fulfilled.js';

/** The `orders` stream (upstream-feed.md): one fulfilled sale per record, named by its orderId. */
export const orderStream = {
  stream: 'orders',
  keyField: 'orderId',
  scheduler: 'poll-orders',
  schema: orderRecordSchema,
  references: orderReferences,
  // An order without orderDate is synced.
  goLive: { field: 'orderDate', setting: 'SYNC_ORDERS_SINCE' },
  pull: (schedule) => ({ every: schedule.orderPollSeconds }),
  lag: 'polled',
  // TRANSFORMS=orders=<name> (docs/transforms.md).
  transforms: { 'shopify-orders-fulfilled': shopifyOrdersFulfilled },
  // An order export: one row per line (upstream-feed.md, "CSV").
  csv: {
    head: [{ name: 'orderId' }, { name: 'orderDate', optional: true }, { name: 'origin' }, { name: 'shipmentIdUser', optional: true }],
    rows: 'lines',
    row: [{ name: 'productId' }, { name: 'quantity', type: 'number' }, { name: 'unitPrice', type: 'number' }, { name: 'location' }],
  },
} as const satisfies StreamDef;
