import type { RedisConnection } from './connection.js';
import { redisScript, runScript } from './scripts.js';

const HSET_IF_EXISTS = redisScript(
  'hsetIfExists',
  `if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
return 0`,
);

/** Sets one field of a hash only when the hash exists (a key removed meanwhile must not come back as one field). */
export async function hsetIfExists(redis: RedisConnection, key: string, field: string, value: string): Promise<void> {
  await runScript(redis, HSET_IF_EXISTS, [1, key, field, value]);
}
