import type { ZodType } from 'zod';
import type { Config } from '../../config/read-config.js';
import type { RedisConnection as Redis, RedisKeys } from '../redis/connection.js';
import type { CsvLayout } from './csv-layout.js';
import type { RecordReferences } from './record-references.js';
import type { TransformFn } from './transform-fn.js';

/** A stream's name: the feed's stream, its BullMQ queue, its job ids' prefix. The list of kinds says which exist. */
export type StreamName = string;

/** Which date field of its records a stream's go-live floor applies to, and the setting that sets the floor. */
export interface GoLiveRule {
  /** A `YYYY-MM-DD` date or a `YYYY-MM-DDTHH:MM:SS` naive date-time field of the record. */
  field: string;
  /** The variable that sets the floor (SYNC_ORDERS_SINCE): its value in config.goLive. */
  setting: string;
}

/** How the control queue pulls a stream: every few seconds, or at the times of a cron pattern. */
export type PullSchedule = { every: number } | { pattern: string; tz?: string };

/** Attempts of one scheduled pull; a failed poll is usually simply redone by the next one. */
export interface PullAttempts {
  attempts: number;
  backoff?: { type: 'exponential'; delay: number };
}

/**
 * What the engine (the feed, the queues, the operator's tools) knows of one kind of job's stream: each
 * `jobs/<kind>/<kind>-stream.ts` declares one, and the composition root hands the list of them to the engine.
 */
export interface StreamDef {
  /** The feed's stream and the BullMQ queue of the same name. */
  stream: StreamName;
  /** The record field that names a record: its business key. */
  keyField: string;
  /** The id of the control queue's job scheduler that pulls the stream. */
  scheduler: string;
  /** The record's shape as the feed delivers it, checked as it arrives and when its job starts. */
  schema: ZodType;
  /** The products and facilities a checked record names (for `check`); takes the record as `schema` parses it. */
  references: (record: never) => RecordReferences;
  /** The record's date field that the go-live floor compares with: records dated before it end skipped. None: no floor. */
  goLive?: GoLiveRule;
  /** How the stream is pulled, from the configuration's schedule settings (in seconds for `every`). */
  pull: (schedule: Config['schedule']) => PullSchedule;
  /** Attempts of a scheduled pull. Default: one. */
  pullAttempts?: PullAttempts;
  /**
   * How the stream's lag is judged for alerts: `polled` streams from the last time they were caught up; `scheduled`
   * ones (a daily cron: a day between pulls is normal) only while their latest pull failed or did not catch up.
   */
  lag: 'polled' | 'scheduled';
  /** Runs before each pull of the stream (a scheduled one, `sync --once`), e.g. to begin a run. */
  beforePull?: (ctx: { redis: Redis; keys: RedisKeys }) => Promise<void>;
  /** Built-in transforms from an upstream's own shape, by the name TRANSFORMS sets them with. None: only modules. */
  transforms?: Readonly<Record<string, TransformFn>>;
  /** How the stream's records read as CSV rows (`import <stream> file.csv`). None: CSV only through a transform. */
  csv?: CsvLayout;
}
