import type { Queue } from 'bullmq';
import type { RedisConnection as Redis } from '../redis/connection.js';
import type { CatalogApi } from '../catalog/types.js';
import type { ServiceApi } from '../client/service-api.js';
import { redisKeys } from '../redis/connection.js';
import { kindOf } from '../records/records.js';
import type { StreamName } from '../records/stream-name.js';
import { ServiceView } from './reconcile-service.js';
import { syncedRecords, type SyncedRecord } from './reconcile-synced.js';
import type { ReconcileReport, Unchecked } from './reconcile-types.js';
import type { ReconcileContext } from './reconcile-rule.js';
import type { OpsKind } from './ops-kind.js';

export interface ReconcileDeps {
  client: ServiceApi;
  catalog: CatalogApi;
  redis: Redis;
  prefix: string;
  queues: { get(stream: StreamName): Pick<Queue, 'getJobs'> };
  /** The kinds of job; each compares what it synced by its own rule (`reconcile`). */
  kinds: readonly OpsKind[];
}

/** Where the last report is kept, for the dashboard. */
export const lastReportKey = (prefix: string) => `${prefix}:reconcile:last`;

/**
 * Compares the service with what the program recorded as synced (completed jobs and the progress in Redis) and
 * lists every drift. Reads each collection it needs once; see docs/investigating.md for what it costs.
 */
export interface ReconcileOptions {
  /** Read every synced order (one GET each) to compare its lines, not only their total. Default false. */
  deep?: boolean;
}

export async function reconcile(deps: ReconcileDeps, streams?: readonly StreamName[], o: ReconcileOptions = {}): Promise<ReconcileReport> {
  const started = Date.now();
  const view = new ServiceView(deps.client);
  const unchecked: Unchecked[] = [];
  const want = new Set(streams ?? deps.kinds.map((k) => k.stream));
  const synced = new Map<StreamName, Promise<Map<string, SyncedRecord>>>();
  const memo = new Map<string, Promise<unknown>>();
  const ctx: ReconcileContext = {
    stream: '',
    catalog: deps.catalog,
    view,
    redis: deps.redis,
    keys: redisKeys(deps.prefix),
    deep: o.deep ?? false,
    wanted: want,
    unchecked,
    synced(stream: StreamName) {
      let hit = synced.get(stream);
      if (!hit) synced.set(stream, (hit = syncedRecords(deps.queues.get(stream), kindOf(deps.kinds, stream))));
      return hit;
    },
    memo<T>(name: string, make: () => Promise<T>): Promise<T> {
      let hit = memo.get(name) as Promise<T> | undefined;
      if (!hit) memo.set(name, (hit = make()));
      return hit;
    },
    stockEffects: () =>
      ctx.memo('stock-effects', async () => {
        const moving = deps.kinds.filter((k) => k.ops?.stockEffects);
        return (await Promise.all(moving.map((k) => k.ops!.stockEffects!({ ...ctx, stream: k.stream })))).flat();
      }),
  };
  const checked: Record<string, number> = {};
  for (const k of deps.kinds) for (const c of k.ops?.reconcile?.counts ?? []) checked[c] = 0;
  const drifts: ReconcileReport['drifts'] = [];
  for (const kind of deps.kinds) {
    if (!kind.ops?.reconcile || !want.has(kind.stream)) continue;
    const r = await kind.ops?.reconcile.run({ ...ctx, stream: kind.stream });
    drifts.push(...r.drifts);
    Object.assign(checked, r.checked);
  }
  return {
    prefix: deps.prefix,
    at: new Date(started).toISOString(),
    streams: deps.kinds.map((k) => k.stream).filter((x) => want.has(x)),
    ok: drifts.length === 0,
    checked,
    compared: deps.kinds.flatMap((k) => (k.ops?.reconcile ? [k.ops?.reconcile.describe(checked)] : [])),
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
