import { calendarDate, positiveInt } from '../../config/setting-rules.js';
import { defineKind } from '../../src/kinds/kind.js';
import { orderCsv } from './order-csv.js';
import { orderFind } from './order-find.js';
import { LIFE_FAILURES } from './order-errors.js';
import { previewOrder } from './order-preview.js';
import { orderRecordSchema } from './order-record.js';
import { orderReferences } from './order-references.js';
import { processOrder } from './order-sync.js';
import { orderReconcile, orderStockEffects } from './reconcile-orders.js';
import { orderRepair } from './repair-orders.js';
import { shopifyOrders } from './transforms/shopify-orders.js';
import { shopifyOrdersFulfilled } from './transforms/shopify-orders-fulfilled.js';

/**
 * The orders (docs/records.md `orders`): snapshots of each order's life, a plain fulfilled sale among them, named by
 * their orderId and synced through one machine (docs/orders.md). The whole kind; its line is in jobs/kinds.ts.
 */
export const orderKind = defineKind({
  stream: 'orders',
  record: {
    keyField: 'orderId',
    schema: orderRecordSchema,
    references: orderReferences,
    // TRANSFORMS=orders=<name> (docs/transforms.md).
    transforms: { 'shopify-orders-fulfilled': shopifyOrdersFulfilled, 'shopify-orders': shopifyOrders },
    // An order export: one row per line, with the order's status and each row's fulfillment (order-csv.ts; docs/records.md, "CSV files").
    csv: orderCsv,
  },
  settings: {
    ORDER_POLL_SECONDS: {
      rule: positiveInt('ORDER_POLL_SECONDS'),
      default: 5,
      doc: 'Seconds between polls of the order feed in `worker`.',
    },
    SYNC_ORDERS_SINCE: {
      rule: calendarDate('SYNC_ORDERS_SINCE'),
      doc: 'Go-live floor: orders dated before this day (YYYY-MM-DD) are skipped, not written.',
    },
  },
  feed: {
    scheduler: 'poll-orders',
    pull: (s) => ({ every: s.orderPollSeconds }),
    lag: 'polled',
    // SHOPIFY_STORE_URL: the store is this stream's source, its orders read as its webhooks are (docs/shopify.md).
    stores: { shopify: 'shopify-orders' },
  },
  job: {
    process: processOrder,
    preview: previewOrder,
    // What is left to a person when the order's life asks what the service cannot do (docs/orders.md).
    failures: LIFE_FAILURES,
    // An order without orderDate is synced.
    goLive: { field: 'orderDate', setting: 'SYNC_ORDERS_SINCE' },
  },
  ops: { find: orderFind, reconcile: orderReconcile, repair: orderRepair, stockEffects: orderStockEffects },
  redisKeys: ['{prefix}:order:{orderId}', '{prefix}:order-life:{orderId}'],
});
