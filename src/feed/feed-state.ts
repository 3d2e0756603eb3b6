import type { ChainableCommander } from 'ioredis';
import type { RedisConnection as Redis, RedisKeys } from '../redis/connection.js';
import type { StreamName } from '../records/stream-name.js';

/** What status and the dashboard show of one feed stream (hash `keys.feedState(stream)`). */
export interface FeedState {
  stream: StreamName;
  /** Cursor the next pull starts from (`keys.cursor(stream)`); none before the first page. */
  cursor?: string;
  lastPollAt?: string;
  /** When a pull last ended with `hasMore: false`. */
  caughtUpAt?: string;
  lastPageSize?: number;
  pages: number;
  recordsQueued: number;
  duplicates: number;
  invalid: number;
  /** Business key (or label) of the newest record seen, and when. */
  newestRecord?: string;
  newestRecordAt?: string;
  /** The last failed pull, when the latest pull failed (an empty field in the hash is none). */
  lastError?: string;
  lastErrorAt?: string;
}

/**
 * Adds one queued page to a MULTI that also moves the cursor, so both change together. An empty poll (the cursor where
 * it was, nothing counted) writes only what changed: an idle account's polls are most of its Redis commands.
 */
export function recordPage(
  multi: ChainableCommander,
  keys: RedisKeys,
  stream: StreamName,
  page: {
    /** The cursor the page was asked after (unchanged: not written again). */
    after: string | undefined;
    cursor: string;
    size: number;
    queued: number;
    duplicates: number;
    invalid: number;
    newest?: string;
    caughtUp: boolean;
  },
): ChainableCommander {
  const key = keys.feedState(stream);
  const now = new Date().toISOString();
  const fields: Record<string, string | number> = { lastPollAt: now, lastCursor: page.cursor, lastPageSize: page.size };
  if (page.newest !== undefined) Object.assign(fields, { newestRecord: page.newest, newestRecordAt: now });
  if (page.caughtUp) fields.caughtUpAt = now;
  if (page.cursor !== page.after) multi.set(keys.cursor(stream), page.cursor);
  multi.hset(key, fields).hdel(key, 'lastError', 'lastErrorAt').hincrby(key, 'pages', 1);
  // readFeedState reads a missing count as 0.
  for (const field of ['queued', 'duplicates', 'invalid'] as const)
    if (page[field] !== 0) multi.hincrby(key, field === 'queued' ? 'recordsQueued' : field, page[field]);
  return multi;
}

/**
 * A scheduled poll that found nothing new (an empty last page at the stored cursor): one HSET of what changed, the
 * poll's time (the lag's, and `quietAt`: the run's, which the schedule's readers take as its last run when it is the
 * newest: schedule-info.ts), its error cleared by an empty value rather than a second command (readers take an empty
 * field as none); no page counted. An idle polled account's polls are most of its Redis commands.
 */
export async function recordQuietPage(redis: Redis, keys: RedisKeys, stream: StreamName, cursor: string): Promise<void> {
  const at = Date.now();
  const now = new Date(at).toISOString();
  const fields = { lastPollAt: now, caughtUpAt: now, lastCursor: cursor, lastPageSize: 0, lastError: '', lastErrorAt: '', quietAt: at };
  await redis.hset(keys.feedState(stream), fields);
}

export async function recordPullError(redis: Redis, keys: RedisKeys, stream: StreamName, message: string): Promise<void> {
  const now = new Date().toISOString();
  await redis.hset(keys.feedState(stream), { lastPollAt: now, lastError: message, lastErrorAt: now });
}

export async function readFeedState(redis: Redis, keys: RedisKeys, stream: StreamName): Promise<FeedState> {
  const [cursor, h] = await Promise.all([redis.get(keys.cursor(stream)), redis.hgetall(keys.feedState(stream))]);
  const num = (v: string | undefined) => (v === undefined ? 0 : Number(v));
  return {
    stream,
    cursor: cursor ?? undefined,
    lastPollAt: h.lastPollAt,
    caughtUpAt: h.caughtUpAt,
    lastPageSize: h.lastPageSize === undefined ? undefined : Number(h.lastPageSize),
    pages: num(h.pages),
    recordsQueued: num(h.recordsQueued),
    duplicates: num(h.duplicates),
    invalid: num(h.invalid),
    newestRecord: h.newestRecord,
    newestRecordAt: h.newestRecordAt,
    // An empty field is none (a quiet poll clears the error so: recordQuietPage).
    lastError: h.lastError || undefined,
    lastErrorAt: h.lastErrorAt || undefined,
  };
}
