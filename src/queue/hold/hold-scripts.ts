import { redisScript } from '../../redis/scripts.js';

/**
 * The hold's transitions in Redis (hold.ts), one Lua script each, shared by the causes kept there: a hash per hold
 * (`keys.breaker(stream)` for `refusals`, `keys.outage()` for `outage`) whose `state` is `open` while held.
 */

/**
 * running(n) → running(n + 1), or → held at the threshold (once, across processes).
 * KEYS: hold hash, pushback hash (the hold hash again when the cause keeps none). ARGV: threshold, now (epoch ms),
 * code, reason, job id, the count's field, the row's life while running (ms, 0: kept), the first probe's delay (ms,
 * 0: the cause has no probe), the pushbacks' life (ms).
 * Answers {state, n, count}: 'open' (held already), 'tripped' (this one held it), or 'closed' (n: this job's
 * pushbacks when the cause keeps them, else the count).
 */
export const COUNT = redisScript(
  'holdCount',
  `
if redis.call('HGET', KEYS[1], 'state') == 'open' then return {'open', 0, 0} end
local count = redis.call('HINCRBY', KEYS[1], ARGV[6], 1)
if count >= tonumber(ARGV[1]) then
  redis.call('HSET', KEYS[1], 'state', 'open', 'since', ARGV[2], 'code', ARGV[3], 'reason', ARGV[4], 'trippedBy', ARGV[5])
  local probe = tonumber(ARGV[8])
  if probe > 0 then
    redis.call('HSET', KEYS[1], 'probeDelay', probe, 'nextProbe', tonumber(ARGV[2]) + probe, 'probes', 0)
  end
  redis.call('PERSIST', KEYS[1])
  return {'tripped', count, count}
end
if tonumber(ARGV[7]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[7]) end
if KEYS[2] == KEYS[1] then return {'closed', count, count} end
local pushbacks = redis.call('HINCRBY', KEYS[2], ARGV[5], 1)
redis.call('PEXPIRE', KEYS[2], ARGV[9])
return {'closed', pushbacks, count}
`,
);

/**
 * running(n) → running(n + 1) or held, for a refusal that must come the same for record after record: counted while
 * its signature repeats (another one starts a new streak); below the threshold the job's id joins the streak (it
 * fails; resume retries it).
 * KEYS: hold hash, streak list. ARGV: threshold, now (epoch ms), code, reason, job id, signature, streak TTL (ms).
 */
export const REPEAT = redisScript(
  'holdRepeat',
  `
if redis.call('HGET', KEYS[1], 'state') == 'open' then return {'open', 0} end
local same = 1
if redis.call('HGET', KEYS[1], 'sameSig') == ARGV[6] then
  same = redis.call('HINCRBY', KEYS[1], 'sameCount', 1)
else
  redis.call('HSET', KEYS[1], 'sameSig', ARGV[6], 'sameCount', 1)
  redis.call('DEL', KEYS[2])
end
if same >= tonumber(ARGV[1]) then
  redis.call('HSET', KEYS[1], 'state', 'open', 'since', ARGV[2], 'code', ARGV[3], 'reason', ARGV[4],
    'trippedBy', ARGV[5], 'count', same, 'by', 'repeated')
  redis.call('PEXPIRE', KEYS[2], ARGV[7])
  return {'tripped', same}
end
redis.call('RPUSH', KEYS[2], ARGV[5])
redis.call('LTRIM', KEYS[2], -tonumber(ARGV[1]), -1)
redis.call('PEXPIRE', KEYS[2], ARGV[7])
return {'closed', same}
`,
);

/**
 * running(n) → running(0): a job synced. Nothing is written while held, or when no count runs.
 * KEYS: hold hash, a list kept beside the count (the streak; the hold hash again when none). ARGV: the count fields.
 * Answers 1 when a count was dropped.
 */
export const CLEAR = redisScript(
  'holdClear',
  `
if redis.call('HGET', KEYS[1], 'state') == 'open' then return 0 end
local counting = false
for _, field in ipairs(ARGV) do
  local v = redis.call('HGET', KEYS[1], field)
  if v and v ~= '0' then counting = true end
end
if not counting then return 0 end
redis.call('DEL', KEYS[1], KEYS[2])
return 1
`,
);

/**
 * held: claims the probe that is due, moving the next one a doubled delay ahead (at most the longest). KEYS: hold
 * hash. ARGV: now (epoch ms), longest delay (ms). Answers 1 when this process is to probe now, else 0.
 */
export const CLAIM_PROBE = redisScript(
  'holdClaimProbe',
  `
local h = redis.call('HMGET', KEYS[1], 'state', 'nextProbe', 'probeDelay')
if h[1] ~= 'open' then return 0 end
local now = tonumber(ARGV[1])
if tonumber(h[2] or '0') > now then return 0 end
local delay = math.min(tonumber(h[3] or ARGV[2]) * 2, tonumber(ARGV[2]))
redis.call('HSET', KEYS[1], 'nextProbe', now + delay, 'probeDelay', delay, 'lastProbeAt', ARGV[1])
redis.call('HINCRBY', KEYS[1], 'probes', 1)
return 1
`,
);

/**
 * held → running(0) by a probe that found the cause gone: ends the hold opened at `since` (another process may have
 * ended it first: answers 0 then) and keeps it as the last one.
 * KEYS: hold hash, ended hash. ARGV: since (as opened, epoch ms), now, jobs that waited, the ended one's life (ms).
 */
export const END_BY_PROBE = redisScript(
  'holdEndByProbe',
  `
local h = redis.call('HMGET', KEYS[1], 'state', 'since', 'reason', 'alerted')
if h[1] ~= 'open' or h[2] ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('HSET', KEYS[2], 'since', ARGV[1], 'endedAt', ARGV[2], 'waited', ARGV[3], 'reason', h[3] or '', 'alerted', h[4] or '0')
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return 1
`,
);
