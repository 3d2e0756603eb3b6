import type { RedisConnection as Redis, RedisKeys } from '../redis/connection.js';
import type { PullResult } from './producer.js';
import type { StreamName } from '../records/stream-name.js';
import { jsonField, type MissedRun } from './missed-runs.js';
import type { PulledKind } from './pulled-kind.js';
import { isLease } from './due-set.js';

export interface ScheduleInfo {
  scheduler: string;
  stream?: StreamName;
  every?: number;
  pattern?: string;
  tz?: string;
  /** The due set's time of its next run (while a run goes on: the time that run recorded). */
  nextRunAt?: string;
  lastRunAt?: string;
  lastOk?: boolean;
  /** Counts of the last successful pull. */
  lastResult?: PullResult;
  lastError?: string;
  /** When the last pull that fetched began (epoch ms): it covers every slot before it. */
  fetchedAt?: number;
  /** The latest slot a run served without fetching (held, failed), while no pull has covered it since. */
  missed?: MissedRun;
  /** The last run that made up a missed slot: the slot, when it ran, why the slot was missed. */
  madeUp?: MissedRun & { at: number };
  /** The last missed slot found older than the catch-up window (not made up). */
  notMadeUp?: MissedRun;
}

/** Where a stream's next run is: its member of the deployment's due set. */
interface DueRef {
  key: string;
  member: string;
}

/** A member's next time in the due set, unless a run of it goes on (its score is then the run's lease). */
async function nextOf(redis: Redis, ref: DueRef | undefined): Promise<number | undefined> {
  if (!ref) return undefined;
  const score = await redis.zscore(ref.key, ref.member);
  return score === null || isLease(Number(score)) ? undefined : Number(score);
}

/**
 * Last and next runs of every stream of `kinds` that a worker scheduled (its rule and due set member as the schedule
 * hash keeps them), in the order of `kinds`: what `status` and the dashboard show.
 */
export async function readScheduleInfo(
  redis: Redis,
  keys: RedisKeys,
  kinds: readonly { stream: string; feed: Pick<PulledKind['feed'], 'scheduler'> }[],
): Promise<ScheduleInfo[]> {
  const runs = await redis.hgetall(keys.schedule());
  const scheduled = kinds.filter(
    (k) => runs[`${k.feed.scheduler}.every`] !== undefined || runs[`${k.feed.scheduler}.pattern`] !== undefined,
  );
  return Promise.all(
    scheduled.map(async ({ stream, feed }): Promise<ScheduleInfo> => {
      const field = (name: string) => runs[`${feed.scheduler}.${name}`];
      const lastResult = field('lastResult');
      const [next, quietAt] = await Promise.all([nextOf(redis, jsonField<DueRef>(field('due'))), quietRunAt(redis, keys, stream)]);
      const info: ScheduleInfo = {
        scheduler: feed.scheduler,
        stream,
        every: field('every') ? Number(field('every')) : undefined,
        pattern: field('pattern'),
        tz: field('tz'),
        nextRunAt: next !== undefined ? new Date(next).toISOString() : field('nextRunAt'),
        lastRunAt: field('lastRunAt'),
        lastOk: field('lastOk') === undefined ? undefined : field('lastOk') === '1',
        lastResult: lastResult ? (JSON.parse(lastResult) as PullResult) : undefined,
        lastError: field('lastError') || undefined,
        fetchedAt: field('fetchedAt') ? Number(field('fetchedAt')) : undefined,
        missed: jsonField<MissedRun>(field('missed')),
        madeUp: jsonField<MissedRun & { at: number }>(field('madeUp')),
        notMadeUp: jsonField<MissedRun>(field('notMadeUp')),
      };
      return withQuietRun(info, quietAt);
    }),
  );
}

/** When the stream's last scheduled poll that found nothing new ran (the feed state's `quietAt`, epoch ms), if any. */
export async function quietRunAt(redis: Redis, keys: RedisKeys, stream: string): Promise<number | undefined> {
  const at = Number((await redis.hget(keys.feedState(stream), 'quietAt')) ?? NaN);
  return Number.isFinite(at) ? at : undefined;
}

/** A quiet poll's result (src/feed/producer.ts), as a run that fetched and found nothing records it. */
const QUIET_RESULT: PullResult = { pages: 1, queued: 0, duplicates: 0, invalid: 0, caughtUp: true, locked: false, quiet: true };

/**
 * A scheduler's runs with its last quiet poll: a scheduled poll that finds nothing new writes only the feed state
 * (one write, not two: issue 56), so when it is newer than the run the schedule hash recorded, it is the last run: ok,
 * fetched then (it covers every slot before it: no slot missed), nothing queued.
 */
export function withQuietRun(info: ScheduleInfo, quietAt: number | undefined): ScheduleInfo {
  const recorded = info.lastRunAt ? Date.parse(info.lastRunAt) : -Infinity;
  if (quietAt === undefined || quietAt <= recorded) return info;
  const fetchedAt = Math.max(quietAt, info.fetchedAt ?? 0);
  return {
    ...info,
    lastRunAt: new Date(quietAt).toISOString(),
    lastOk: true,
    lastResult: QUIET_RESULT,
    lastError: undefined,
    fetchedAt,
    missed: info.missed && info.missed.dueAt >= fetchedAt ? info.missed : undefined,
  };
}
