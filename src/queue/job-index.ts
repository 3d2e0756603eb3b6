import type { RedisConnection as Redis } from '../redis/connection.js';
import { KEEP_COMPLETED_SECONDS } from './queues.js';
import { idSafe, MAX_KEY_IN_ID } from './job-id.js';
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

/** Whether `id` is a job of the record whose ids begin with `head` (`{stream}-{key}-`), not of a longer key. */
const isOfHead = (id: string, head: string) => id.startsWith(head) && HASH_TAIL.test(id.slice(head.length));

/**
 * `{stream}-{key}-` of a record job's id, when the id is one of a record with a key (not `{stream}-invalid-...`) whose
 * key was kept whole in it (keys past the id's limit share their first part with others).
 */
export function recordIdHead(id: string, stream: StreamName): string | undefined {
  const m = /^(.*-)[0-9a-f]{12}(-(resync|repair)-[0-9a-z]+)?$/.exec(id);
  const head = m?.[1];
  if (!head || !head.startsWith(`${stream}-`)) return undefined;
  const safe = head.slice(stream.length + 1, -1);
  return safe && safe !== 'invalid' && safe.length < MAX_KEY_IN_ID ? head : undefined;
}

/**
 * The ids in the index of each record (by its id head, `{stream}-{key}-`) queued from `since` (epoch ms, by day) on:
 * one ZRANGEBYLEX per record and day of the index's retention, in one round trip.
 */
export async function indexedIdsOf(
  redis: Redis,
  prefix: string,
  heads: ReadonlyArray<{ head: string; since: number }>,
  now = Date.now(),
): Promise<Map<string, string[]>> {
  const days = Math.ceil(jobIndexTtlSeconds() / 86_400) + 1;
  const pipe = redis.pipeline();
  const asked: string[] = [];
  for (const { head, since } of heads) {
    // From the day it was queued (at most the retention back) to tomorrow (a clock ahead of this one).
    const back = Math.min(days - 1, Math.max(0, Math.floor((Date.parse(utcDay(now)) - Date.parse(utcDay(since))) / DAY_MS)));
    for (let d = -1; d <= back; d++) {
      pipe.zrangebylex(jobIndexKey(prefix, utcDay(now - d * DAY_MS)), `[${head}`, `(${head.slice(0, -1)}.`);
      asked.push(head);
    }
  }
  const out = new Map<string, string[]>(heads.map((h) => [h.head, []]));
  const replies = asked.length ? ((await pipe.exec()) ?? []) : [];
  replies.forEach(([err, ids], i) => {
    if (err) throw err;
    const head = asked[i]!;
    const list = out.get(head)!;
    for (const id of ids as string[]) if (isOfHead(id, head) && !list.includes(id)) list.push(id);
  });
  return out;
}

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
  const heads = streams.map((s) => `${s}-${safe}-`);
  const indexed = await indexedIdsOf(
    redis,
    prefix,
    heads.map((head) => ({ head, since: 0 })),
    now,
  );
  const found = new Set<string>([...indexed.values()].flat());
  for (const s of streams) {
    let cursor = '0';
    do {
      const [next, items] = await redis.zscan(`${prefix}:${s}:failed`, cursor, 'MATCH', `${globEscape(`${s}-${safe}-`)}*`, 'COUNT', 1000);
      cursor = next;
      for (let i = 0; i < items.length; i += 2) found.add(items[i]!);
    } while (cursor !== '0');
  }
  // Only `{stream}-{key}-{hash}` itself: a longer key that starts with this one has more before its hash.
  return [...found].filter((id) => heads.some((head) => isOfHead(id, head)));
}
