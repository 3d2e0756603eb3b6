import type { Queue } from 'bullmq';
import type { StreamName } from '../../records/stream-name.js';
import { checkEvictionPolicy } from '../../redis/eviction-policy.js';
import { isCluster, type RedisConnection as Redis } from '../../redis/connection.js';
import { intakeCounts } from '../intake-counts.js';
import type { RedisCheck } from './check-types.js';

export interface CheckRedisOptions {
  redis: Redis;
  /** Where Redis is, as it may be shown (no password). */
  at: string;
  prefix: string;
  queues: {
    streams(): StreamName[];
    get(stream: StreamName): Pick<Queue, 'getJobCounts'>;
    intake(stream: StreamName): Pick<Queue, 'getJobCounts'>;
  };
}

/** Jobs that will still run: a first run would take them before (or beside) the feed's. */
const PENDING_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children'] as const;

/** Redis's version, eviction policy and kind, the prefix, and the jobs already queued under it; reads only. */
export async function checkRedis(o: CheckRedisOptions): Promise<RedisCheck> {
  const [info, eviction] = await Promise.all([o.redis.info('server'), checkEvictionPolicy(o.redis)]);
  const queued = await Promise.all(
    o.queues.streams().map(async (stream) => {
      const [counts, batches] = await Promise.all([
        o.queues.get(stream).getJobCounts(...PENDING_STATES, 'failed'),
        intakeCounts(o.queues, stream),
      ]);
      const pending = PENDING_STATES.reduce((sum, s) => sum + (counts[s] ?? 0), 0);
      return { stream, pending, failed: counts.failed ?? 0, batches: batches.waiting + batches.active + batches.delayed };
    }),
  );
  return {
    at: o.at,
    mode: isCluster(o.redis) ? 'cluster' : 'single',
    version: /^redis_version:(.+)$/m.exec(info)?.[1]?.trim() ?? null,
    maxmemoryPolicy: eviction.policy,
    warning: eviction.warning,
    prefix: o.prefix,
    queued,
    pendingTotal: queued.reduce((sum, q) => sum + q.pending + q.batches, 0),
  };
}
