import { calendarDate, positiveInt } from '../../../config/setting-rules.js';
import { defineKind } from '../../../src/kinds/kind.js';
import { adjustStock, adjustmentFailures } from './adjust-stock.js';
import { adjustmentReconcile, adjustmentStockEffects } from './adjustment-reconcile.js';
import { stockAdjustmentSchema } from './stock-adjustment-record.js';

/**
 * A test-only fifth kind, declared whole: stock adjustments (a write-off or found stock). Its record and key, its own
 * poll setting and go-live floor, its job, its failure code and hint, what `find` shows, its reconcile read of a
 * collection no other kind reads, and the stock it moves (which the stock counts' reconcile nets out).
 */
export const stockAdjustmentKind = defineKind({
  stream: 'stock-adjustments',
  record: {
    keyField: 'adjustmentId',
    schema: stockAdjustmentSchema,
    references: (r) => ({ products: r.items.map((i) => i.productId), facilities: [{ name: r.location, want: 'location' }] }),
  },
  settings: {
    ADJUSTMENT_POLL_SECONDS: {
      rule: positiveInt('ADJUSTMENT_POLL_SECONDS'),
      default: 30,
      doc: 'Seconds between polls of the adjustments.',
    },
    SYNC_ADJUSTMENTS_SINCE: { rule: calendarDate('SYNC_ADJUSTMENTS_SINCE'), doc: 'Go-live floor of the adjustments (YYYY-MM-DD).' },
  },
  feed: { scheduler: 'poll-stock-adjustments', pull: (s) => ({ every: s.adjustmentPollSeconds }), lag: 'polled' },
  job: { process: adjustStock, failures: adjustmentFailures, goLive: { field: 'adjustedDate', setting: 'SYNC_ADJUSTMENTS_SINCE' } },
  ops: {
    find: {
      entityKinds: ['variance'],
      entities: (d) => (typeof d.varianceUrl === 'string' ? [{ kind: 'variance', url: d.varianceUrl }] : []),
    },
    reconcile: adjustmentReconcile,
    stockEffects: adjustmentStockEffects,
  },
});
