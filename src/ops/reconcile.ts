import type { Queue } from 'bullmq';
import type { RedisConnection as Redis } from '../redis.js';
import type { CatalogApi } from '../catalog/types.js';
import type { ServiceApi } from '../client/service-api.js';
import { redisKeys } from '../redis.js';
import { STREAMS, type StreamName } from '../../jobs/streams.js';
import { reconcileBoms } from '../../jobs/boms/reconcile-boms.js';
import { planSyncedOrders, reconcileOrders } from '../../jobs/orders/reconcile-orders.js';
import { ServiceView } from './reconcile-service.js';
import { reconcileStock } from '../../jobs/stock/reconcile-stock.js';
import { syncedRecords } from './reconcile-synced.js';
import type { ReconcileReport, Unchecked } from './reconcile-types.js';

export interface ReconcileDeps {
  client: ServiceApi;
  catalog: CatalogApi;
  redis: Redis;
  prefix: string;
  queues: { get(stream: StreamName): Pick<Queue, 'getJobs'> };
}

/** Where the last report is kept, for the dashboard. */
export const lastReportKey = (prefix: string) => `${prefix}:reconcile:last`;

/**
 * Compares the service with what the program recorded as synced (completed jobs and the progress in Redis) and
 * lists every drift. Reads each collection it needs once; see docs/operations.md for what it costs.
 */
export interface ReconcileOptions {
  /** Read every synced order (one GET each) to compare its lines, not only their total. Default false. */
  deep?: boolean;
}

export async function reconcile(deps: ReconcileDeps, streams: readonly StreamName[] = STREAMS, o: ReconcileOptions = {}): Promise<ReconcileReport> {
  const started = Date.now();
  const view = new ServiceView(deps.client);
  const unchecked: Unchecked[] = [];
  const want = new Set(streams);
  // Synced orders are needed for the stock too: their shipments since a count are sales, not drift.
  const needOrders = want.has('orders') || want.has('stock-counts');
  const orders = needOrders ? await planSyncedOrders(await syncedRecords(deps.queues.get('orders'), 'orders'), deps.catalog, want.has('orders') ? unchecked : []) : [];
  const ord = want.has('orders') ? await reconcileOrders(orders, view, o) : { drifts: [], shipments: 0 };
  const s = want.has('stock-counts')
    ? await reconcileStock(await syncedRecords(deps.queues.get('stock-counts'), 'stock-counts'), orders, { catalog: deps.catalog, view, redis: deps.redis, keys: redisKeys(deps.prefix) }, unchecked)
    : { drifts: [], pairs: 0 };
  const b = want.has('boms') ? await reconcileBoms(await syncedRecords(deps.queues.get('boms'), 'boms'), deps.catalog, view, unchecked) : { drifts: [], boms: 0 };
  const drifts = [...ord.drifts, ...s.drifts, ...b.drifts];
  return {
    prefix: deps.prefix,
    at: new Date(started).toISOString(),
    streams: STREAMS.filter((x) => want.has(x)),
    ok: drifts.length === 0,
    checked: { orders: want.has('orders') ? orders.length : 0, shipments: ord.shipments, stockPairs: s.pairs, boms: b.boms },
    drifts,
    unchecked,
    calls: { ...view.calls },
    ms: Date.now() - started,
  };
}

/** Keeps the report as the last one (no secret in it: URLs, ids, quantities). */
export async function storeReport(redis: Redis, report: ReconcileReport): Promise<void> {
  await redis.set(lastReportKey(report.prefix), JSON.stringify(report));
}

export async function readLastReport(redis: Redis, prefix: string): Promise<ReconcileReport | undefined> {
  const raw = await redis.get(lastReportKey(prefix));
  return raw ? (JSON.parse(raw) as ReconcileReport) : undefined;
}
