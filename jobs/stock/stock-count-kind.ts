import { calendarDate, cronPattern, timeZone } from '../../config/setting-rules.js';
import { defineKind } from '../../src/kinds/kind.js';
import { countFind } from './count-find.js';
import { stockReconcile } from './reconcile-stock.js';
import { stockRepair } from './repair-stock-rule.js';
import { stockCountJob, type StockCountJobOptions } from './stock-count-sync.js';
import { stockCountRecordSchema } from './stock-count-record.js';
import { stockCountReferences } from './stock-count-references.js';
import { beginStockSyncRun } from './stock-run.js';

export type { StockCountJobOptions };

/**
 * The stock counts (docs/records.md `stock-counts`): one count of a location per record, named by its countId,
 * synced as inventory variances (docs/stock-sync.md). The whole kind, its job's timings from `opts` (tests, benches).
 */
export function createStockCountKind(opts: StockCountJobOptions = {}) {
  const job = stockCountJob(opts);
  return defineKind({
    stream: 'stock-counts',
    record: {
      keyField: 'countId',
      schema: stockCountRecordSchema,
      references: stockCountReferences,
      // A count sheet: one row per location and product, the rows of one countId together (docs/records.md, "CSV files").
      csv: {
        head: [{ name: 'countId' }, { name: 'location' }, { name: 'countDate' }],
        rows: 'items',
        row: [{ name: 'productId' }, { name: 'quantity', type: 'number' }],
        // A count is applied per (location, product): a bad row fails alone, named `{countId}~{productId}` and by its line.
        rowsAlone: { line: 'line', rowKey: 'productId' },
      },
    },
    settings: {
      STOCK_SYNC_CRON: {
        rule: cronPattern('STOCK_SYNC_CRON', '0 19 * * *'),
        default: '0 19 * * *',
        doc: 'When `worker` pulls stock counts.',
      },
      STOCK_SYNC_TZ: { rule: timeZone('STOCK_SYNC_TZ'), doc: "Time zone of STOCK_SYNC_CRON (IANA). Default: the process's." },
      SYNC_COUNTS_SINCE: {
        rule: calendarDate('SYNC_COUNTS_SINCE'),
        doc: 'Go-live floor: counts dated before this day (YYYY-MM-DD) are skipped, not written.',
      },
    },
    feed: {
      scheduler: 'stock-sync',
      pull: (s) => ({ pattern: s.stockSyncCron, ...(s.stockSyncTz ? { tz: s.stockSyncTz } : {}) }),
      lag: 'scheduled',
      // A pull of the counts begins a run: its counts share one fresh read of on-hand stock.
      beforePull: ({ redis, keys }) => beginStockSyncRun(redis, keys),
    },
    job: { process: job.process, preview: job.preview, goLive: { field: 'countDate', setting: 'SYNC_COUNTS_SINCE' } },
    ops: { find: countFind, reconcile: stockReconcile, repair: stockRepair },
    redisKeys: ['{prefix}:count:{countId}', '{prefix}:stock:*', '{prefix}:lock:location:{location}', '{prefix}:lock:stock-snapshot:read'],
  });
}

export const stockCountKind = createStockCountKind();
