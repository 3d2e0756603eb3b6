import type { RedisConnection as Redis } from '../redis/connection.js';
import { KEEP_COMPLETED_SECONDS } from './queues.js';
import { idSafe } from './job-id.js';
import type { StreamName } from '../records/stream-name.js';
import { utcDay } from '../time/date-format.js';

/**
 * An index from business key to job ids, for `find`. Job ids are `{stream}-{key}-{hash}`: the key is in the id but
 * the hash is not known from the key, and BullMQ's sets are ordered by time, so finding a key's jobs there means
 * scanning them all. Instead every job id queued is also added, with score 0, to a sorted set of the day
 * (`{prefix}:jobs-by-key:{YYYY-MM-DD}`): a ZRANGEBYLEX on `{stream}-{key}-` then answers in O(log n).
 * A day's set lives as long as completed jobs are kept (7 days) plus two days, so it expires with the jobs it names.
 * Failed jobs are kept for good: `findJobIds` also scans the failed sets, which are small.
 */

const DAY_MS = 86_400_000;
/** Life of a day's set after its last write, in seconds (a function: queues.ts and this module import each other). */
export const jobIndexTtlSeconds = () => KEEP_COMPLETED_SECONDS + 2 * 86_400;
/** Members per ZADD: keeps each command small. */
const CHUNK = 1000;

export function jobIndexKey(prefix: string, day: string): string {
  return `${prefix}:jobs-by-key:${day}`;
}

/**
 * Adds job ids to today's set. Called before the jobs are added, so a crash in between leaves an id without a job
 * (which `find` skips), never a job without an id in the index.
 */
export async function indexJobIds(redis: Redis, prefix: string, ids: readonly string[], now = Date.now()): Promise<void> {
  if (ids.length === 0) return;
  const key = jobIndexKey(prefix, utcDay(now));
  const pipe = redis.pipeline();
  for (let i = 0; i < ids.length; i += CHUNK) {
    const args: Array<string | number> = [];
    for (const id of ids.slice(i, i + CHUNK)) args.push(0, id);
    pipe.zadd(key, ...args);
  }
  pipe.expire(key, jobIndexTtlSeconds());
  await pipe.exec();
}

/** Glob special characters escaped, for SCAN's MATCH. */
const globEscape = (s: string) => s.replace(/[*?[\]\\]/g, (c) => `\\${c}`);

/** The record's hash, and on a resync or repair job the suffix that keeps it apart from the record's job. */
const HASH_TAIL = /^[0-9a-f]{12}(-(resync|repair)-[0-9a-z]+)?$/;

/**
 * Ids of every job of a business key in each stream, from the index (the days of job retention) and the failed sets.
 * The caller checks each job's record, since keys longer than a job id keeps share a prefix.
 */
export async function findJobIds(
  redis: Redis,
  prefix: string,
  key: string,
  streams: readonly StreamName[],
  now = Date.now(),
): Promise<string[]> {
  const safe = idSafe(key);
  const days = Math.ceil(jobIndexTtlSeconds() / 86_400) + 1;
  const pipe = redis.pipeline();
  for (let d = -1; d < days; d++) {
    const setKey = jobIndexKey(prefix, utcDay(now - d * DAY_MS));
    for (const s of streams) pipe.zrangebylex(setKey, `[${s}-${safe}-`, `(${s}-${safe}.`);
  }
  const found = new Set<string>();
  for (const [err, ids] of (await pipe.exec()) ?? []) {
    if (err) throw err;
    for (const id of ids as string[]) found.add(id);
  }
  for (const s of streams) {
    let cursor = '0';
    do {
      const [next, items] = await redis.zscan(`${prefix}:${s}:failed`, cursor, 'MATCH', `${globEscape(`${s}-${safe}-`)}*`, 'COUNT', 1000);
      cursor = next;
      for (let i = 0; i < items.length; i += 2) found.add(items[i]!);
    } while (cursor !== '0');
  }
  // Only `{stream}-{key}-{hash}` itself: a longer key that starts with this one has more before its hash.
  return [...found].filter((id) => {
    const s = streams.find((x) => id.startsWith(`${x}-${safe}-`));
    return s !== undefined && HASH_TAIL.test(id.slice(`${s}-${safe}-`.length));
  });
}
