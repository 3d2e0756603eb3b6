import type { RedisConnection } from './connection.js';
import { redisScript, runScript } from './scripts.js';

const HSET_IF_EXISTS = redisScript(
  'hsetIfExists',
  `if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('HSET', KEYS[1], unpack(ARGV)) end
return 0`,
);

/** Sets fields of a hash only when the hash exists (a key removed meanwhile must not come back as a few fields). */
export async function hsetIfExists(redis: RedisConnection, key: string, field: string, value: string, ...more: string[]): Promise<void> {
  await runScript(redis, HSET_IF_EXISTS, [1, key, field, value, ...more]);
}
