import type { RedisConnection } from './connection.js';
import { redisScript, runScript } from './scripts.js';

const EXISTS_EACH = redisScript(
  'existsEach',
  `local r = {}
for i, k in ipairs(KEYS) do r[i] = redis.call('EXISTS', k) end
return r`,
);

/**
 * Which of these keys exist, one Redis round trip for all (a Lua loop of EXISTS). On a cluster they must share a slot
 * (all keys of one queue do when its prefix has a hash tag).
 */
export async function keysExist(redis: RedisConnection, keys: readonly string[]): Promise<boolean[]> {
  if (keys.length === 0) return [];
  const r = (await runScript(redis, EXISTS_EACH, [keys.length, ...keys])) as number[];
  return r.map((x) => x === 1);
}
