import type { RedisConnection as Redis } from '../redis/connection.js';
import { SUPERSEDED_FIELD } from '../queue/failure-group.js';
import { indexedIdsOf, recordIdHead } from '../queue/job-index.js';
import type { StreamQueues } from '../queue/stream-queues.js';
import type { StreamName } from '../records/stream-name.js';
import { hsetIfExists } from '../redis/hset-if-exists.js';
import { failedReasons, type FailedReason } from './failed-reasons.js';
import { APPLIED } from './reconcile-synced.js';

/**
 * Failures now, and failures that are history: the one answer `status`, the dashboard (its tables and its charts'
 * headers), `find` and `jobs retry` read. A failed record job is superseded once a newer version of its record synced:
 * a job of the same stream and key, queued after it, that completed with its record applied (synced, or already
 * matching). A job retried to success is no failure at all (it is completed); what is left failed and not superseded
 * is what a person has to look at.
 */

/** What it reads: the streams' record queues under a prefix, and the connection they share. */
export type FailureQueues = Pick<StreamQueues, 'prefix' | 'redis' | 'get'>;

/** Failed record jobs read per stream (newest first), as the failure groups read them. */
export const FAILED_SCAN = 2000;

/** A stream's failed record jobs: those failed now, and those a newer version of their record superseded. */
export interface StreamFailures {
  /** BullMQ's count of the stream's failed record jobs (both kinds, every one: not only those read). */
  total: number;
  /** Failed and not superseded, of those read. */
  now: FailedReason[];
  /** Superseded (history), of those read, with the newer version's job id. */
  superseded: Array<FailedReason & { by: string }>;
}

/** Failed now, in BullMQ's count minus the superseded ones found among those read. */
export const failedNowCount = (f: StreamFailures): number => Math.max(0, f.total - f.superseded.length);

/** What a version's job says of itself, for telling whether it supersedes an older one. */
interface Version {
  queuedAt: number;
  applied: boolean;
}

/** Each candidate's queue time and whether it completed with its record applied (one round trip). */
async function readVersions(redis: Redis, queue: ReturnType<FailureQueues['get']>, ids: readonly string[]): Promise<Map<string, Version>> {
  const out = new Map<string, Version>();
  if (!ids.length) return out;
  const pipe = redis.pipeline();
  for (const id of ids) pipe.hmget(queue.toKey(id), 'timestamp', 'returnvalue').zscore(queue.toKey('completed'), id);
  const replies = (await pipe.exec()) ?? [];
  ids.forEach((id, i) => {
    const [[e1, fields], [e2, score]] = [replies[2 * i]!, replies[2 * i + 1]!];
    if (e1 || e2) throw e1 ?? e2;
    const [timestamp, rv] = fields as Array<string | null>;
    let outcome: unknown;
    try {
      outcome = rv ? (JSON.parse(rv) as { outcome?: unknown } | null)?.outcome : undefined;
    } catch {
      outcome = undefined;
    }
    out.set(id, { queuedAt: Number(timestamp ?? 0), applied: score !== null && typeof outcome === 'string' && APPLIED.has(outcome) });
  });
  return out;
}

/**
 * Of failed record jobs of `stream`, those a newer version of their record superseded: failed id → the newer job's
 * id. Known from the mark beside the failed job, else from the job index (the newer version's job must still be
 * kept: 7 days); what it finds it marks (SUPERSEDED_FIELD), so that it stays known after the newer job is trimmed.
 * A mark that cannot be written (Redis refusing writes) is only not kept.
 */
export async function supersededOf(
  queues: FailureQueues,
  stream: StreamName,
  failed: readonly FailedReason[],
  now = Date.now(),
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const heads = new Map<string, number>();
  const open: Array<FailedReason & { head: string }> = [];
  for (const f of failed) {
    if (f.supersededBy) {
      out.set(f.id, f.supersededBy);
      continue;
    }
    const head = recordIdHead(f.id, stream);
    if (!head) continue;
    open.push({ ...f, head });
    heads.set(head, Math.min(heads.get(head) ?? f.queuedAt, f.queuedAt));
  }
  if (!open.length) return out;
  const redis = queues.redis;
  const queue = queues.get(stream);
  const indexed = await indexedIdsOf(
    redis,
    queues.prefix,
    [...heads].map(([head, since]) => ({ head, since })),
    now,
  );
  const failedIds = new Set(failed.map((f) => f.id));
  const candidates = [...new Set([...indexed.values()].flat())].filter((id) => !failedIds.has(id));
  const versions = await readVersions(redis, queue, candidates);
  const found: Array<[string, string]> = [];
  for (const f of open) {
    const newer = (indexed.get(f.head) ?? [])
      .map((id) => ({ id, v: versions.get(id) }))
      .filter((c) => c.v?.applied && c.v.queuedAt > f.queuedAt)
      .sort((a, b) => b.v!.queuedAt - a.v!.queuedAt)[0];
    if (newer) found.push([f.id, newer.id]);
  }
  await Promise.all(found.map(([id, by]) => hsetIfExists(redis, queue.toKey(id), SUPERSEDED_FIELD, by).catch(() => undefined)));
  for (const [id, by] of found) out.set(id, by);
  return out;
}

/** A stream's failed record jobs (the newest `scan`), each failed now or superseded (history). */
export async function streamFailures(queues: FailureQueues, stream: StreamName, scan = FAILED_SCAN): Promise<StreamFailures> {
  const queue = queues.get(stream);
  const [total, read] = await Promise.all([queue.getFailedCount(), failedReasons(queue, queues.redis, 0, scan - 1)]);
  const by = await supersededOf(queues, stream, read);
  return {
    total,
    now: read.filter((f) => !by.has(f.id)),
    superseded: read.flatMap((f) => (by.has(f.id) ? [{ ...f, by: by.get(f.id)! }] : [])),
  };
}

/** The newer version that superseded one failed record job of `stream`, if any (undefined too when it is not failed). */
export async function supersededBy(queues: FailureQueues, stream: StreamName, id: string): Promise<string | undefined> {
  const queue = queues.get(stream);
  const rank = await queues.redis.zrevrank(queue.toKey('failed'), id);
  if (rank === null) return undefined;
  const [job] = await failedReasons(queue, queues.redis, rank, rank);
  return job?.id === id ? (await supersededOf(queues, stream, [job])).get(id) : undefined;
}
