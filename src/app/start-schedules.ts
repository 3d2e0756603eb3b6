import { startControl, type Control } from '../feed/control.js';
import type { DueLoop } from '../feed/due-loop.js';
import type { Kind } from '../kinds/kind.js';
import { kindOf } from '../records/records.js';
import { pulledKinds } from './pulled-kinds.js';
import type { Config } from '../../config/read-config.js';
import type { FeedSource } from '../feed/feed-source.js';
import type { Logger } from '../log/logger.js';
import type { QueueSet } from '../queue/queues.js';
import type { RedisConnection as Redis, RedisKeys } from '../redis/connection.js';

/** What the scheduled pulls need of the program's parts (the runtime's deps, an account's parts). */
export interface ScheduleDeps {
  config: Config;
  redis: Redis;
  keys: RedisKeys;
  upstream?: FeedSource;
  queues: QueueSet;
  logger: Logger;
  kinds: readonly Kind[];
}

/** The account's scheduled pulls of these kinds, on `due` (the process's loop) or a loop of their own. */
export function startSchedules(d: ScheduleDeps, kinds: readonly Kind[], due?: DueLoop): Promise<Control> {
  if (!d.upstream) throw new Error('UPSTREAM_URL: is required to pull the feed');
  return startControl({
    prefix: d.config.redis.prefix,
    redis: d.redis,
    keys: d.keys,
    upstream: d.upstream,
    queues: d.queues,
    schedule: d.config.schedule,
    catchUpMs: d.config.catchUpMs,
    pageSize: d.config.jobs.feedPageSize,
    logger: d.logger,
    kinds: pulledKinds(
      d,
      kinds.map((k) => kindOf(d.kinds, k.stream)),
    ),
    ...(due ? { due } : {}),
    ...(d.config.accountName !== undefined ? { account: d.config.accountName } : {}),
  });
}
