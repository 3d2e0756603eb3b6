import type { Config } from '../../config/read-config.js';
import type { CatalogApi } from '../catalog/types.js';
import type { ServiceApi } from '../client/service-api.js';
import type { CallHolds } from './hold/call-holds.js';
import type { Logger } from '../log/logger.js';
import type { RedisConnection as Redis, RedisKeys } from '../redis/connection.js';
import type { HeldLock } from '../redis/redis-lock.js';
import type { JobTracing } from '../telemetry/job-tracing.js';
import type { StreamName } from '../records/stream-name.js';
import type { FromService } from './queues.js';

/** The go-live settings that are set (config.goLive): per variable (a kind's SYNC_*_SINCE), its `YYYY-MM-DD`. */
export type GoLiveSettings = Partial<Record<string, string>>;

/** What every job of every kind stands on (the job runner's dependencies). */
export interface RunnerDeps {
  client: ServiceApi;
  catalog: CatalogApi;
  redis: Redis;
  keys: RedisKeys;
  logger: Logger;
  jobs: Config['jobs'];
  /** The go-live settings (config.goLive); each stream's rule names its own. Default: none. */
  goLive?: GoLiveSettings;
  /** Spans per attempt and per service call; only when tracing is on (OTEL_EXPORTER_OTLP_ENDPOINT). */
  jobTracing?: JobTracing;
  /**
   * The process's holds of the service's calls (src/queue/hold/call-holds.ts), which the catalog's reads go through too
   * (buildDeps). Default: the worker pool makes its own.
   */
  callHolds?: CallHolds;
}

/**
 * What a job's processing gets, built by the job runner for each attempt: the runner's dependencies, with
 * `client` recording every call in this attempt's trace and `logger` a child bound to the job id and business key.
 */
export interface JobContext extends RunnerDeps {
  jobId: string;
  stream: StreamName;
  /** 1 for the first attempt. */
  attempt: number;
  /**
   * This execution's lease on its record (src/queue/lease/): `assertHeld()` throws LeaseLostError once it is known
   * lost or unconfirmed past its life, without a round trip. Every write of `client` is fenced by the lease in Redis
   * too (src/client/layers/fence-layer.ts), so nothing leaves for an execution whose job was taken again. Absent in a
   * dry run.
   */
  lock?: HeldLock;
  /** Adds a line to this attempt's trace, for operators (e.g. "create response lost; read the order back"). */
  note(message: string, data?: Record<string, unknown>): void;
  /**
   * How long after a lost answer the service may still apply the write, in ms (defaults.lateWriteMs): a lost create
   * not found sooner is read again then (SettleLaterError). Absent in a dry run, which never waits.
   */
  lateWriteMs?: number;
  /** Runs the reads that settle an uncertain write (`pending`): a span of the attempt's trace when tracing is on. */
  settling<T>(pending: string, fn: () => Promise<T>): Promise<T>;
  /**
   * Set on a resync or a repair (`resync`, `reconcile --repair`): plan from what the service has, as after a lost
   * answer (read, then write only what is missing), even when the progress kept says the record is synced.
   */
  fromService?: FromService;
}

export interface JobResult {
  /** synced: the service was changed; unchanged: it already matched; skipped: deliberately not applied (e.g. older count). */
  outcome: 'synced' | 'unchanged' | 'skipped';
  /** One line for operators. */
  summary: string;
  /**
   * A skipped record's reason in a few words, the same for every record skipped so (a run's summary counts them by it):
   * "before go-live", "an older snapshot than one already applied", "replaced by a corrected version".
   */
  why?: string;
  details?: Record<string, unknown>;
}

/**
 * What a preview gets: a job's context whose client refuses every write and whose Redis refuses every write
 * command, plus `memo`, state shared by the previews of one dry run (e.g. the simulated on-hand stock).
 */
export interface PreviewContext extends JobContext {
  /** The value stored under `name` for this dry run, made by `make` on first use. */
  memo<T>(name: string, make: () => T): T;
}
