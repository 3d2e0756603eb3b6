import type { ZodType } from 'zod';
import type { KindSetting, KindSettings } from '../../config/kind-setting.js';
import type { FindRule } from '../ops/find-rule.js';
import type { ReconcileContext, ReconcileRule } from '../ops/reconcile-rule.js';
import type { RepairRule } from '../ops/repair-rule.js';
import type { JobContext, JobResult, PreviewContext } from '../queue/job-kind.js';
import type { PreviewResult } from '../queue/record-plan.js';
import type { CsvLayout } from '../records/csv-layout.js';
import type { RecordReferences } from '../records/record-references.js';
import type { TransformFn } from '../records/transform-fn.js';
import type { GoLiveRule, PullAttempts, PullSchedule, StreamName } from '../records/stream-def.js';
import type { RedisConnection as Redis, RedisKeys } from '../redis/connection.js';
import type { StockEffect } from './stock-effect.js';

/**
 * One kind of job, declared whole in its folder (jobs/<kind>/<kind>-kind.ts): its stream and record, its settings,
 * its job, and what the operator's tools read of it. The composition root (src/app, src/bin) hands the list of
 * them (jobs/streams.ts) to config, the engine and every command, which never name a kind; a part that needs only
 * some of it takes a `Pick<Kind, ...>`.
 */
export interface Kind<R = any> {
  /** The feed's stream and the BullMQ queue of the same name (its job ids' prefix too). */
  stream: StreamName;
  /** The record field that names a record: its business key. */
  keyField: string;
  /** The record's shape as the feed delivers it, checked as it arrives and when its job starts. */
  schema: ZodType<R>;
  /** The products and facilities a checked record names (for `check`). */
  references: (record: R) => RecordReferences;
  /** Built-in transforms from an upstream's own shape, by the name TRANSFORMS sets them with. None: only modules. */
  transforms?: Readonly<Record<string, TransformFn>>;
  /** How the stream's records read as CSV rows (`import <stream> file.csv`). None: CSV only through a transform. */
  csv?: CsvLayout;

  /** Its own settings (poll interval or cron, go-live floor): variable, rule, default, doc line. None: none. */
  settings?: readonly KindSetting[];
  /** The record's date field the go-live floor compares with, and the setting (of `settings`) that sets it. */
  goLive?: GoLiveRule;
  /** The id of the control queue's job scheduler that pulls the stream. */
  scheduler: string;
  /** How the stream is pulled, from its settings' values (config.schedule; seconds for `every`). */
  pull: (settings: KindSettings) => PullSchedule;
  /** Attempts of a scheduled pull. Default: one. */
  pullAttempts?: PullAttempts;
  /**
   * How the stream's lag is judged for alerts: `polled` streams from the last time they were caught up; `scheduled`
   * ones (a daily cron: a day between pulls is normal) only while their latest pull failed or did not catch up.
   */
  lag: 'polled' | 'scheduled';
  /** Runs before each pull of the stream (a scheduled one, `sync --once`), e.g. to begin a run. */
  beforePull?: (ctx: { redis: Redis; keys: RedisKeys }) => Promise<void>;
  /**
   * The Redis keys it keeps beside its queues, as patterns under the prefix (`{prefix}:<name>:{key}`); its folder
   * names them (a `<kind>-keys.ts`), the engine never does. None: only its queues and the engine's per-stream keys.
   */
  redisKeys?: readonly string[];

  /** Syncs one record. */
  process(record: R, ctx: JobContext): Promise<JobResult>;
  /**
   * The dry run: what `process` would do with the record, as data, reading only (ctx's client and Redis refuse
   * writes). Throws what `process` would fail with (a BadRecordError for a bad record).
   */
  preview?(record: R, ctx: PreviewContext): Promise<PreviewResult>;
  /** The failure codes of its own (a PermanentJobError's code) with what to do about each (`jobs show`). */
  failures?: Readonly<Record<string, string>>;

  /** What `find` shows of a key's entities and progress. None: only its jobs. */
  find?: FindRule;
  /** How `reconcile` compares what it synced with the service. None: not reconciled. */
  reconcile?: ReconcileRule;
  /** How `reconcile --repair` repairs the drifts its reconcile rule finds. None: every drift is left to a person. */
  repair?: RepairRule;
  /** The stock its synced records moved (a shipment, a write-off), for the stock reconcile. None: it moves none. */
  stockEffects?: (ctx: ReconcileContext) => Promise<StockEffect[]>;
}
