import type { Queue } from 'bullmq';
import type { FeedPage, FetchPageOptions } from './upstream-client.js';
import type { Logger } from '../log/logger.js';
import { kindOf } from '../records/records.js';
import type { RedisConnection as Redis, RedisKeys } from '../redis/connection.js';
import { pullStream, type PullResult } from './producer.js';
import type { JobData } from '../queue/queues.js';
import type { StreamName } from '../records/stream-name.js';
import { messageOf } from '../errors/message-of.js';
import { logRepeated, reasonOf } from '../log/log-throttle.js';
import { findRedisFailure } from '../redis/errors.js';
import type { PulledKind } from './pulled-kind.js';
import type { PullResult as Pulled } from './producer.js';
import type { MissedCause, MissedRun } from './missed-runs.js';

/** What a scheduled pull needs: the feed, the stream queues, the account's Redis and keys. */
export interface ScheduledPullDeps {
  redis: Redis;
  keys: RedisKeys;
  upstream: { fetchPage(stream: StreamName, o: FetchPageOptions): Promise<FeedPage> };
  queues: { get(stream: StreamName): Queue<JobData> };
  pageSize: number;
  logger: Logger;
  kinds: readonly PulledKind[];
  /** The pull lock's life, in ms (tests). Default defaults.pullLockTtlMs. */
  lockTtlMs?: number;
}

export interface ScheduledRun {
  scheduler: string;
  stream: StreamName;
  /** The slot this run serves (its time in the due set: a cron's fire, an interval's slot); default: its start. */
  dueAt?: number;
  /** A run that makes up a missed slot (make-up.ts): why the slot was missed, told with the run. */
  madeUp?: MissedCause;
  /** The next run's time, read once the pull is done (recorded for status). */
  nextRunAt(): Promise<Date | undefined>;
  /** Stops the pull at its next page (a close past its grace period). */
  signal?: AbortSignal;
}

/** Writes fields of one scheduler's run into the schedule hash (`{scheduler}.{field}`), which status and the dashboard read. */
export function recordSchedule(o: Pick<ScheduledPullDeps, 'redis' | 'keys'>, scheduler: string, fields: Record<string, string>) {
  return o.redis.hset(o.keys.schedule(), Object.fromEntries(Object.entries(fields).map(([k, v]) => [`${scheduler}.${k}`, v])));
}

/** Why a pull fetched nothing though it ran: its stream held (the breaker's pause, the service down), if so. */
function notFetched(result: Pulled): 'paused' | 'outage' | undefined {
  if (result.paused) return 'paused';
  return result.held ? 'outage' : undefined;
}

const NOT_FETCHED_TEXT = {
  paused: 'not pulled: the stream is paused (inventory-sync resume); made up once it runs again',
  outage: 'not pulled: the service is down; made up once it answers again',
} as const;

/**
 * One scheduled pull of a stream (its turn in the due set, or the make-up of a missed one: src/feed/control.ts): the kind's
 * `beforePull`, then the pull (held while the stream is paused or the service is down: pullStream), its run recorded
 * for status and the dashboard. A run that did not fetch is never recorded as ok: it is kept as missed, with why, and
 * made up once the cause ends (make-up.ts). A failure is logged and recorded, then thrown.
 */
export async function runScheduledPull(o: ScheduledPullDeps, run: ScheduledRun): Promise<PullResult> {
  const { scheduler, stream } = run;
  const startedAt = new Date();
  const dueAt = run.dueAt ?? startedAt.getTime();
  const log = o.logger.child({ scheduler, stream });
  const missed = (cause: MissedCause) => JSON.stringify({ dueAt, cause } satisfies MissedRun);
  try {
    const kind = kindOf(o.kinds, stream);
    await kind.feed.beforePull?.({ redis: o.redis, keys: o.keys });
    const result = await pullStream({
      kind,
      upstream: o.upstream,
      // Opened once a page has records: an account whose polls find nothing holds no queue (issue 56).
      queue: () => o.queues.get(stream),
      redis: o.redis,
      keys: o.keys,
      pageSize: o.pageSize,
      logger: log,
      signal: run.signal,
      // The due set's claim makes this run the only scheduled one of its slot: an empty feed takes no lock.
      lookFirst: true,
      ...(o.lockTtlMs ? { lockTtlMs: o.lockTtlMs } : {}),
    });
    const next = await run.nextRunAt().catch(() => undefined);
    const held = notFetched(result);
    const ran = { lastRunAt: startedAt.toISOString(), ...(next ? { nextRunAt: next.toISOString() } : {}) };
    if (held) await recordSchedule(o, scheduler, { ...ran, lastOk: '0', lastError: NOT_FETCHED_TEXT[held], missed: missed(held) });
    // Nothing new: the feed state's write (its `quietAt`) is the run's record (readScheduleInfo), unless it made a slot up.
    else if (result.quiet && !run.madeUp) return result;
    // Another process pulls the stream right now: its run is the one recorded.
    else if (!result.locked) {
      const madeUp: Record<string, string> = run.madeUp
        ? { madeUp: JSON.stringify({ dueAt, at: startedAt.getTime(), cause: run.madeUp }) }
        : {};
      // One HSET: the error and the missed run cleared by empty values (readScheduleInfo takes them as none).
      await recordSchedule(o, scheduler, {
        ...ran,
        lastOk: '1',
        lastResult: JSON.stringify(result),
        fetchedAt: String(startedAt.getTime()),
        lastError: '',
        missed: '',
        ...madeUp,
      });
    }
    return result;
  } catch (err) {
    // Stopped by a close past its grace period, which says so; the next run resumes from the cursor.
    if (run.signal?.aborted) throw err;
    logPullFailed(log, stream, err);
    const failed = { lastRunAt: startedAt.toISOString(), lastOk: '0', lastError: messageOf(err), missed: missed('failed') };
    await recordSchedule(o, scheduler, failed).catch(() => undefined);
    throw err;
  }
}

/**
 * The feed or the service down fails every poll: one line per stream and reason every 30 s; Redis refusing or away, one
 * line per reason for every stream (`pull:redis:OOM`; a discarded transaction, EXECABORT, counted under its cause).
 */
export function logPullFailed(log: Logger, stream: string, err: unknown): void {
  const message = messageOf(err);
  const hint = (err as { hint?: unknown }).hint;
  // Redis refusing (full, read-only, away) fails every stream's pull alike: one line for them all, not one a stream.
  const byRedis = findRedisFailure(err) !== undefined;
  logRepeated(
    log,
    'error',
    byRedis ? `pull:redis:${reasonOf(err)}` : `pull:${stream}:${reasonOf(err)}`,
    { err: message, hint },
    `scheduled pull of ${stream} failed: ${message}${typeof hint === 'string' ? `. ${hint}` : ''}; the next run tries again`,
  );
}
