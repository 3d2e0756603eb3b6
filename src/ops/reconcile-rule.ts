import type { CatalogApi } from '../catalog/types.js';
import type { RedisConnection as Redis, RedisKeys } from '../redis/connection.js';
import type { StreamName } from '../records/stream-name.js';
import type { ServiceView } from './reconcile-service.js';
import type { SyncedRecord } from './reconcile-synced.js';
import type { Drift, Unchecked } from './reconcile-types.js';
import type { StockEffect } from './stock-effect.js';

/** What a kind's reconcile rule (and its stock effects) gets for one run. */
export interface ReconcileContext {
  /** The stream of the kind asked: the rule's own. */
  stream: StreamName;
  catalog: CatalogApi;
  view: ServiceView;
  redis: Redis;
  keys: RedisKeys;
  /** Read every synced entity to compare it whole (reconcile --deep). */
  deep: boolean;
  /** The streams this run reconciles. */
  wanted: ReadonlySet<StreamName>;
  /** Synced records of that stream: the newest applied completed job per key (read once per run). */
  synced(stream: StreamName): Promise<Map<string, SyncedRecord>>;
  /** A value the rules of one run share, made on first use (e.g. the synced orders the stock rule reads too). */
  memo<T>(name: string, make: () => Promise<T>): Promise<T>;
  /** Where a rule lists the synced records it could not compare. */
  unchecked: Unchecked[];
  /** What the synced records of every kind that moves stock moved (each kind's `stockEffects`), read once per run. */
  stockEffects(): Promise<StockEffect[]>;
}

/** How a kind compares the service with what it synced (`reconcile`). */
export interface ReconcileRule {
  /** The counters it reports in the report's `checked`, in order; each is 0 when its stream is not reconciled. */
  counts: readonly string[];
  /** What the counters say, for people: "3 orders, 3 orders' shipments". */
  describe(checked: Readonly<Record<string, number>>): string;
  run(ctx: ReconcileContext): Promise<{ drifts: Drift[]; checked: Record<string, number> }>;
  /**
   * Of two applied versions of one record, whether `a` is the reference in place of `b` (an order's snapshot by its
   * updatedAt); undefined, or no such rule: the version whose job finished last is.
   */
  newer?(a: unknown, b: unknown): boolean | undefined;
}
