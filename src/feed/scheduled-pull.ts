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
import type { PulledKind } from './scheduler-watchdog.js';

/** What a scheduled pull needs: the feed, the stream queues, the account's Redis and keys. */
export interface ScheduledPullDeps {
  redis: Redis;
  keys: RedisKeys;
  upstream: { fetchPage(stream: StreamName, o: FetchPageOptions): Promise<FeedPage> };
  queues: { get(stream: StreamName): Queue<JobData> };
  pageSize: number;
  logger: Logger;
  kinds: readonly PulledKind[];
}

export interface ScheduledRun {
  scheduler: string;
  stream: StreamName;
  /** The next run's time, read once the pull is done (recorded for status). */
  nextRunAt(): Promise<Date | undefined>;
  /** Stops the pull at its next page (a close past its grace period). */
  signal?: AbortSignal;
}

/** Writes fields of one scheduler's run into the schedule hash (`{scheduler}.{field}`), which status and the dashboard read. */
export function recordSchedule(o: Pick<ScheduledPullDeps, 'redis' | 'keys'>, scheduler: string, fields: Record<string, string>) {
  return o.redis.hset(o.keys.schedule(), Object.fromEntries(Object.entries(fields).map(([k, v]) => [`${scheduler}.${k}`, v])));
}

/**
 * One scheduled pull of a stream (a job scheduler's run or a ticker's slot): the kind's `beforePull`, then the pull
 * (held while the stream is paused or the service is down: pullStream), its run recorded for status and the
 * dashboard. A failure is logged and recorded, then thrown.
 */
export async function runScheduledPull(o: ScheduledPullDeps, run: ScheduledRun): Promise<PullResult> {
  const { scheduler, stream } = run;
  const startedAt = new Date();
  const log = o.logger.child({ scheduler, stream });
  try {
    const kind = kindOf(o.kinds, stream);
    await kind.feed.beforePull?.({ redis: o.redis, keys: o.keys });
    const result = await pullStream({
      kind,
      upstream: o.upstream,
      queue: o.queues.get(stream),
      redis: o.redis,
      keys: o.keys,
      pageSize: o.pageSize,
      logger: log,
      signal: run.signal,
    });
    const next = await run.nextRunAt().catch(() => undefined);
    await recordSchedule(o, scheduler, {
      lastRunAt: startedAt.toISOString(),
      lastOk: '1',
      lastResult: JSON.stringify(result),
      ...(next ? { nextRunAt: next.toISOString() } : {}),
    });
    await o.redis.hdel(o.keys.schedule(), `${scheduler}.lastError`);
    return result;
  } catch (err) {
    // Stopped by a close past its grace period, which says so; the next run resumes from the cursor.
    if (run.signal?.aborted) throw err;
    logPullFailed(log, stream, err);
    await recordSchedule(o, scheduler, { lastRunAt: startedAt.toISOString(), lastOk: '0', lastError: messageOf(err) }).catch(
      () => undefined,
    );
    throw err;
  }
}

/** The feed, the service or Redis down fails every poll: one line per stream and reason every 30 s. */
export function logPullFailed(log: Logger, stream: string, err: unknown): void {
  const message = messageOf(err);
  const hint = (err as { hint?: unknown }).hint;
  logRepeated(
    log,
    'error',
    `pull:${stream}:${reasonOf(err)}`,
    { err: message, hint },
    `scheduled pull of ${stream} failed: ${message}${typeof hint === 'string' ? `. ${hint}` : ''}; the next run tries again`,
  );
}
