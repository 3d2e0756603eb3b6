import { createHash } from 'node:crypto';
import type { RedisConnection as Redis } from '../redis.js';

/** A Lua script run by EVALSHA, loaded with EVAL the first time a Redis does not know it. */
export interface LuaScript {
  lua: string;
  sha: string;
}

function script(lua: string): LuaScript {
  return { lua, sha: createHash('sha1').update(lua).digest('hex') };
}

/**
 * Reserves the next slot of one or more lanes (GCRA, theoretical arrival time per lane), all at once: the
 * request goes at the first instant every lane allows, and each lane's schedule moves past that instant.
 * KEYS: for each lane its TAT key, hold key and share hash, then the stats hash.
 * ARGV: for each lane its emission interval (ms), its burst tolerance (ms) and its name (the first: the class).
 * A lane's share (`f` of its hash, adapt-script.ts; 1 when absent, or `fw` until `fwUntil` when lower: what the
 * service's window has left) stretches its interval: interval / f.
 * Answers the ms to wait before sending (0: send now).
 * Time is Redis's, so processes on machines with different clocks share one schedule.
 */
export const ACQUIRE = script(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local n = (#KEYS - 1) / 3
local start = now
local tats = {}
for i = 1, n do
  local tat = tonumber(redis.call('GET', KEYS[3 * i - 2])) or now
  tats[i] = tat
  local s = tat - tonumber(ARGV[3 * i - 1])
  if s > start then start = s end
  local h = redis.call('PTTL', KEYS[3 * i - 1])
  if h > 0 and now + h > start then start = now + h end
end
for i = 1, n do
  local tat = tats[i]
  if start > tat then tat = start end
  local sh = redis.call('HMGET', KEYS[3 * i], 'f', 'fw', 'fwUntil')
  local f = tonumber(sh[1]) or 1
  local fw = tonumber(sh[2])
  if fw and (tonumber(sh[3]) or 0) > now and fw < f then f = fw end
  if f < 0.01 then f = 0.01 elseif f > 1 then f = 1 end
  tat = tat + tonumber(ARGV[3 * i - 2]) / f
  redis.call('SET', KEYS[3 * i - 2], string.format('%.3f', tat), 'PX', math.ceil(tat - now) + 1000)
  redis.call('HINCRBY', KEYS[#KEYS], 'requests:' .. ARGV[3 * i], 1)
end
local wait = math.ceil(start - now)
if wait > 0 then redis.call('HINCRBY', KEYS[#KEYS], 'waitedMs:' .. ARGV[3], wait) end
return wait
`);

/**
 * Blocks one or more lanes for every process until the service's reset (a 429 answered).
 * KEYS: the hold keys, then the stats hash. ARGV: ms from now, the class answered 429. A longer hold already
 * in place is kept.
 */
export const HOLD = script(`
local ms = tonumber(ARGV[1])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for i = 1, #KEYS - 1 do
  if redis.call('PTTL', KEYS[i]) < ms then
    redis.call('SET', KEYS[i], string.format('%.0f', now + ms), 'PX', ms)
  end
end
redis.call('HINCRBY', KEYS[#KEYS], 'holds:' .. ARGV[2], 1)
return 1
`);

/** EVALSHA, falling back to EVAL once when the Redis does not have the script yet (restart, new server). */
export async function runScript(redis: Redis, s: LuaScript, args: Array<string | number>): Promise<unknown> {
  try {
    return await redis.evalsha(s.sha, ...(args as [number, ...Array<string | number>]));
  } catch (err) {
    if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
    return redis.eval(s.lua, ...(args as [number, ...Array<string | number>]));
  }
}
