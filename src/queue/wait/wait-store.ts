import type { RedisConnection as Redis, RedisKeys } from '../../redis/connection.js';
import { refKey, refOf, type Reference } from './reference.js';

/**
 * Where the records that wait for a missing reference are kept (keys.waiting, keys.waitFor, keys.waitRefs): per stream,
 * each waiting job's references and since when; per (stream, reference), its job ids by since; and the set of what is
 * waited for, which the look at the catalog goes through (wait-look.ts). A job's entries go when it is released.
 */

/** A waiting job as kept. */
export interface WaitEntry {
  refs: Reference[];
  /** When it began to wait, epoch ms. */
  since: number;
}

/** The records of one stream that wait for one reference. */
export interface WaitGroup {
  stream: string;
  ref: Reference;
  count: number;
  /** When the oldest of them began to wait, epoch ms. */
  since: number;
}

const member = (stream: string, ref: string) => JSON.stringify([stream, ref]);

function parseMember(m: string): [string, string] | undefined {
  try {
    const v = JSON.parse(m) as unknown;
    return Array.isArray(v) && typeof v[0] === 'string' && typeof v[1] === 'string' ? [v[0], v[1]] : undefined;
  } catch {
    return undefined;
  }
}

/** Keeps a job as waiting for `refs` since `since`. */
export async function noteWait(redis: Redis, keys: RedisKeys, stream: string, jobId: string, e: WaitEntry): Promise<void> {
  const pipe = redis.multi();
  pipe.hset(keys.waiting(stream), jobId, JSON.stringify({ refs: e.refs.map(refKey), since: e.since }));
  for (const ref of e.refs.map(refKey)) {
    pipe.zadd(keys.waitFor(stream, ref), e.since, jobId);
    pipe.sadd(keys.waitRefs(), member(stream, ref));
  }
  await pipe.exec();
}

/** What a job waits for, when it waits. */
export async function waitOf(redis: Redis, keys: RedisKeys, stream: string, jobId: string): Promise<WaitEntry | undefined> {
  const raw = await redis.hget(keys.waiting(stream), jobId);
  if (raw === null) return undefined;
  try {
    const v = JSON.parse(raw) as { refs: string[]; since: number };
    return { refs: v.refs.map(refOf), since: v.since };
  } catch {
    return undefined;
  }
}

/** Forgets a job's wait (released, failed past its bound, or gone). */
export async function dropWait(redis: Redis, keys: RedisKeys, stream: string, jobId: string): Promise<void> {
  const entry = await waitOf(redis, keys, stream, jobId);
  const pipe = redis.multi();
  pipe.hdel(keys.waiting(stream), jobId);
  for (const ref of entry?.refs ?? []) pipe.zrem(keys.waitFor(stream, refKey(ref)), jobId);
  await pipe.exec();
}

/** Every (stream, reference) waited for now, with its key. */
export async function waitedRefs(redis: Redis, keys: RedisKeys): Promise<Array<{ stream: string; ref: string }>> {
  const members = await redis.smembers(keys.waitRefs());
  return members.flatMap((m) => {
    const p = parseMember(m);
    return p ? [{ stream: p[0], ref: p[1] }] : [];
  });
}

/** Takes every job id that waits for `ref` in `stream` (the reference exists now): their entries go. */
export async function takeWaiting(redis: Redis, keys: RedisKeys, stream: string, ref: string): Promise<string[]> {
  const ids = await redis.zrange(keys.waitFor(stream, ref), '0', '-1');
  const pipe = redis.multi();
  pipe.del(keys.waitFor(stream, ref));
  pipe.srem(keys.waitRefs(), member(stream, ref));
  if (ids.length) pipe.hdel(keys.waiting(stream), ...ids);
  await pipe.exec();
  return ids;
}

/** The waiting groups, oldest first: per (stream, reference), how many records and since when (one ZCARD and ZRANGE each). */
export async function readWaitGroups(redis: Redis, keys: RedisKeys): Promise<WaitGroup[]> {
  const refs = await waitedRefs(redis, keys);
  const pipe = redis.pipeline();
  for (const { stream, ref } of refs) {
    pipe.zcard(keys.waitFor(stream, ref));
    pipe.zrange(keys.waitFor(stream, ref), '0', '0', 'WITHSCORES');
  }
  const out = (await pipe.exec()) ?? [];
  const groups = refs.map(({ stream, ref }, i) => {
    const count = Number(out[2 * i]?.[1] ?? 0);
    const first = out[2 * i + 1]?.[1] as string[] | undefined;
    return { stream, ref: refOf(ref), count, since: Number(first?.[1] ?? Date.now()) };
  });
  return groups.filter((g) => g.count > 0).sort((a, b) => a.since - b.since);
}

/** Records that wait now, per stream (HLEN each): what /metrics counts. */
export async function waitingCounts(redis: Redis, keys: RedisKeys, streams: readonly string[]): Promise<Record<string, number>> {
  const counts = await Promise.all(streams.map((s) => redis.hlen(keys.waiting(s))));
  return Object.fromEntries(streams.map((s, i) => [s, counts[i]!]));
}
