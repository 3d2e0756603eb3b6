import type { SettingsShape } from '../../config/kind-setting.js';
import type { RedisConnection as Redis, RedisKeys } from '../redis/connection.js';
import type { CheckedKind } from '../records/record-kind.js';
import type { PullSchedule } from '../records/stream-name.js';

/**
 * What a kind says of its pulls (its `feed`, FeedKind's part): what the producer and the schedulers read; V: its settings'
 * values.
 */
export interface FeedPart<V = any> {
  /** The id of the control queue's job scheduler that pulls the stream. */
  scheduler: string;
  /** How the stream is pulled, from its settings' values (seconds for `every`). */
  pull: (settings: V) => PullSchedule;
  /**
   * How the stream's lag is judged for alerts: `polled` streams from the last time they were caught up; `scheduled`
   * ones (a daily cron: a day between pulls is normal) only while their latest pull failed or did not catch up.
   */
  lag: 'polled' | 'scheduled';
  /**
   * The stores this stream can be read from (a store source, src/sources/), each with the name of the built-in
   * transform (its `record.transforms`) that makes its records of the store's orders as its webhooks send them.
   */
  stores?: Readonly<Record<string, string>>;
  /** Runs before each pull of the stream (a scheduled one, `sync --once`), e.g. to begin a run. */
  beforePull?: (ctx: { redis: Redis; keys: RedisKeys }) => Promise<void>;
}

/** A kind as the feed sees it (src/feed's slice of it): its stream, its records' key and shape, its pulls. */
export interface FeedKind<V = any> extends CheckedKind {
  feed: FeedPart<V>;
  /** Its settings, whose values its pull reads (config's part of a kind). */
  settings?: SettingsShape;
}
