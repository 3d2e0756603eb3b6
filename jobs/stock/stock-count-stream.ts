import type { StreamDef } from '../../src/records/stream-def.js';
import { beginStockSyncRun } from './stock-run.js';
import { stockCountReferences } from './stock-count-references.js';
import { stockCountRecordSchema } from './stock-count-record.js';

/** The `stock-counts` stream (upstream-feed.md): one count of a location per record, named by its countId. */
export const stockCountStream = {
  stream: 'stock-counts',
  keyField: 'countId',
  scheduler: 'stock-sync',
  schema: stockCountRecordSchema,
  references: stockCountReferences,
  goLive: { field: 'countDate', setting: 'SYNC_COUNTS_SINCE' },
  pull: (schedule) => ({ pattern: schedule.stockSyncCron, ...(schedule.stockSyncTz ? { tz: schedule.stockSyncTz } : {}) }),
  // A missed daily stock sync is worth a few retries.
  pullAttempts: { attempts: 5, backoff: { type: 'exponential', delay: 10_000 } },
  lag: 'scheduled',
  // A pull of the counts begins a run: its counts share one fresh read of on-hand stock.
  beforePull: ({ redis, keys }) => beginStockSyncRun(redis, keys),
  // A count sheet: one row per location and product, the rows of one countId together (upstream-feed.md, "CSV").
  csv: {
    head: [{ name: 'countId' }, { name: 'location' }, { name: 'countDate' }],
    rows: 'items',
    row: [{ name: 'productId' }, { name: 'quantity', type: 'number' }],
  },
} as const satisfies StreamDef;
