import type { ZodType } from 'zod';
import type { Config } from '../../config/read-config.js';
import type { GoLiveFloors, GoLiveRule } from './go-live.js';
import type { CatalogApi } from '../catalog/types.js';
import type { ServiceApi } from '../client/service-api.js';
import type { Logger } from '../logger.js';
import type { RedisConnection as Redis, RedisKeys } from '../redis.js';
import type { JobTracing } from '../telemetry/job-tracing.js';
import type { StreamName } from '../../jobs/streams.js';
import type { PreviewContext, PreviewResult } from './record-plan.js';

/** What every job of every kind stands on (the job runner's dependencies). */
export interface RunnerDeps {
  client: ServiceApi;
  catalog: CatalogApi;
  redis: Redis;
  keys: RedisKeys;
  logger: Logger;
  jobs: Config['jobs'];
  /** Per stream, the date before which records are skipped (config.goLive). Default: none. */
  goLive?: GoLiveFloors;
  /** Spans per attempt and per service call; only when tracing is on (OTEL_EXPORTER_OTLP_ENDPOINT). */
  jobTracing?: JobTracing;
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
  /** Adds a line to this attempt's trace, for operators (e.g. "create response lost; read the order back"). */
  note(message: string, data?: Record<string, unknown>): void;
  /** Runs the reads that settle an uncertain write (`pending`): a span of the attempt's trace when tracing is on. */
  settling<T>(pending: string, fn: () => Promise<T>): Promise<T>;
}

export interface JobResult {
  /** synced: the service was changed; unchanged: it already matched; skipped: deliberately not applied (e.g. older count). */
  outcome: 'synced' | 'unchanged' | 'skipped';
  /** One line for operators. */
  summary: string;
  details?: Record<string, unknown>;
}

/** One kind of job: the shape of its record and how it is synced. Each jobs/<kind>/ folder exports one (jobs/registry.ts). */
export interface JobKind<R = unknown> {
  stream: StreamName;
  /** The record's shape as the feed delivers it; its business key is the stream's keyField (jobs/streams.ts). */
  schema: ZodType<R>;
  /** The date field the stream's go-live floor applies to (from its stream definition); the runner skips older records. */
  goLive?: GoLiveRule;
  process(record: R, ctx: JobContext): Promise<JobResult>;
  /**
   * The dry run: what `process` would do with the record, as data, reading only (ctx's client and Redis refuse
   * writes). Throws what `process` would fail with (a BadRecordError for a bad record).
   */
  preview?(record: R, ctx: PreviewContext): Promise<PreviewResult>;
}

/** A job kind of any record type (kinds differ in theirs). */
export type AnyJobKind = JobKind<any>;
