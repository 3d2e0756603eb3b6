import type { StreamDef } from '../../src/records/stream-def.js';
import { orderReferences } from './order-references.js';
import { orderRecordSchema } from './order-record.js';

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
} as const satisfies StreamDef;
