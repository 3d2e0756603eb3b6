import type { RedisConnection } from './connection.js';
import { redisScript, runScript } from './scripts.js';

// The life starts at a write that says so (ARGV[1] = '1') and is never left unset: a hash recreated by a later write
// (its key expired under a running job) gets one too. HSET and EXPIRE as one command: each command is a socket
// write, which is what a busy worker pays for.
const HSET_WITH_LIFE = redisScript(
  'progressWrite',
  `redis.call('HSET', KEYS[1], unpack(ARGV, 3))
if ARGV[1] == '1' or redis.call('TTL', KEYS[1]) < 0 then return redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return 0`,
);

/** How long a progress hash lives: `seconds` from a write that `starts` it. */
export interface ProgressLife {
  seconds: number;
  starts: boolean;
}

/**
 * One record's progress in Redis (an order's steps, a count's chunks): a hash of string fields under the record's
 * own key, read whole and written a few fields at a time, each write one round trip.
 */
export class ProgressHash {
  constructor(
    private readonly redis: RedisConnection,
    readonly key: string,
  ) {}

  /** Every field; empty when there is no progress. */
  read(): Promise<Record<string, string>> {
    return this.redis.hgetall(this.key);
  }

  /** The named fields, null for each one missing. */
  fields(...names: string[]): Promise<Array<string | null>> {
    return this.redis.hmget(this.key, ...names);
  }

  /** Sets fields; with a `life`, the hash lives that long from a write that starts it and never lives without one. */
  async write(fields: Record<string, string>, life?: ProgressLife): Promise<void> {
    if (!life) {
      await this.redis.hset(this.key, fields);
      return;
    }
    await runScript(this.redis, HSET_WITH_LIFE, [1, this.key, life.starts ? '1' : '0', life.seconds, ...Object.entries(fields).flat()]);
  }
}
