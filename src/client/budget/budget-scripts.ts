import { redisScript } from '../../redis/scripts.js';

/** Buckets in a lane's ring of sent counts: a bucket is a 120th of the lane's window, so the ring holds two windows. */
export const SENT_SLOTS = 256;

/** Length of a lane's sent buckets: a 120th of its window (500 ms for a minute). */
export function sentBucketMs(windowMs: number): number {
  return Math.max(1, Math.round(windowMs / 120));
}

/**
 * Reserves the next slot of one or more lanes (GCRA, theoretical arrival time per lane), all at once: the
 * request goes at the first instant every lane allows, and each lane's schedule moves past that instant.
 * KEYS: for each lane its TAT key, hold key, share hash, sent hash and learnt hash, then the stats hash.
 * ARGV: for each lane its emission interval (ms), its burst tolerance (ms), its name (the first: the class), the
 * length of its sent buckets (ms; 0 counts none), its slow start (a fraction; 1: none) and its share hash's TTL (ms);
 * then the pulse (requests; 1: none).
 * A lane with a slow start and no share hash (a fresh account, or every process gone for longer than the hash's life)
 * gets one: the share learnt hash remembers for the account when there is one (a slow start's last step, when the last
 * process left one under way), else the slow start's first share (`ss` of the hash: share-script.ts raises it a step
 * at a time while no 429 comes, and ends it).
 * A lane's share (`f` of its hash, share-script.ts; 1 when absent, or `fw` until `fwUntil` when lower: what the
 * service's window has left) stretches its interval: interval / f; while `fw` binds, `fwBurst` requests may go
 * back to back (a small part of what the window has left).
 * A lane whose share is read from 429s alone (`pulse` of its share hash: headers on 429s only, share-script.ts; a
 * share made here) sends in pulses: the requests of `pulse` of its slots go together, at the start of the pulse's
 * time (within half a slot of it), so that a token bucket the others drain refuses this program's second request of a
 * pulse rather than the others' requests in between (docs/budget-start.md, "Pulses"). The rate is the same; a lone
 * request waits for the next pulse (at most `pulse` slots).
 * The sent hash counts the lane's requests by send time in a ring of SENT_SLOTS buckets (slot: "bucket:count"), so
 * that a 429 can tell what this program spent of the service's window (share-script.ts).
 * Answers the ms to wait before sending (0: send now).
 * Time is Redis's, so processes on machines with different clocks share one schedule.
 */
export const ACQUIRE = redisScript(
  'budgetAcquire',
  `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local n = (#KEYS - 1) / 5
local pk = tonumber(ARGV[6 * n + 1]) or 1
local start, P = now, 0
local tats, fs = {}, {}
for i = 1, n do
  local iv = tonumber(ARGV[6 * i - 5])
  local tol = tonumber(ARGV[6 * i - 4])
  local shareKey = KEYS[5 * i - 2]
  local sh = redis.call('HMGET', shareKey, 'f', 'fw', 'fwUntil', 'fwBurst', 'pulse')
  local slow = tonumber(ARGV[6 * i - 1])
  if not sh[1] and slow < 1 then
    local ms = math.floor(now)
    local l = redis.call('HMGET', KEYS[5 * i], 'f', 'ceil', 'ss')
    local lf = tonumber(l[1])
    if lf and lf > 0 and lf < 1 and l[3] == '1' then
      -- A slow start the account's last process left under way goes on from its last step.
      redis.call('HSET', shareKey, 'f', l[1], 'reason', 'slow-start', 'at', ms, 'since', ms, 'ss', '1', 'pulse', '1')
      sh[1] = l[1]
    elseif lf and lf > 0 and lf <= 1 then
      local since, why = ms, 'remembered'
      if lf >= 1 then since, why = 0, 'configured' end
      redis.call('HSET', shareKey, 'f', l[1], 'reason', why, 'at', ms, 'since', since, 'ss', '0', 'pulse', '1')
      if l[2] then redis.call('HSET', shareKey, 'ceil', l[2]) end
      sh[1] = l[1]
    else
      sh[1] = string.format('%.4f', slow)
      redis.call('HSET', shareKey, 'f', sh[1], 'reason', 'slow-start', 'at', ms, 'since', ms, 'ss', '1', 'pulse', '1')
    end
    sh[5] = '1'
    redis.call('PEXPIRE', shareKey, tonumber(ARGV[6 * i]))
  end
  local f = tonumber(sh[1]) or 1
  local fw = tonumber(sh[2])
  if fw and (tonumber(sh[3]) or 0) > now and fw < f then
    f = fw
    local b = tonumber(sh[4]) or 0
    if f >= 0.01 and b * iv / f > tol then tol = b * iv / f end
  end
  if f < 0.01 then f = 0.01 elseif f > 1 then f = 1 end
  fs[i] = f
  if sh[5] == '1' and pk > 1 and pk * iv / f > P then P = pk * iv / f end
  local tat = tonumber(redis.call('GET', KEYS[5 * i - 4])) or now
  tats[i] = tat
  local s = tat - tol
  if s > start then start = s end
  local h = redis.call('PTTL', KEYS[5 * i - 3])
  if h > 0 and now + h > start then start = now + h end
end
-- Pulses: a request whose time is past the pulse's first half slot goes with the next pulse, and takes its slots
-- from the pulse's first on (so that requests one after the other, each when the last was answered, fill a pulse).
local pulsed = false
if P > 0 then
  local g = math.floor(start / P) * P
  if start - g > P / pk / 2 then
    start = g + P
    pulsed = true
  end
end
for i = 1, n do
  local tat = tats[i]
  local iv = tonumber(ARGV[6 * i - 5]) / fs[i]
  local from = start
  if pulsed then from = start - (pk - 1) * iv end
  if from > tat then tat = from end
  tat = tat + iv
  redis.call('SET', KEYS[5 * i - 4], string.format('%.3f', tat), 'PX', math.ceil(tat - now) + 1000)
  redis.call('HINCRBY', KEYS[#KEYS], 'requests:' .. ARGV[6 * i - 3], 1)
  local bms = tonumber(ARGV[6 * i - 2])
  if bms > 0 then
    local b = math.floor(start / bms)
    local slot = b % ${SENT_SLOTS}
    local v = redis.call('HGET', KEYS[5 * i - 1], slot)
    local c = 1
    if v then
      local vb, vc = string.match(v, '^(%d+):(%d+)$')
      if tonumber(vb) == b then c = tonumber(vc) + 1 end
    end
    redis.call('HSET', KEYS[5 * i - 1], slot, string.format('%d:%d', b, c))
    redis.call('PEXPIRE', KEYS[5 * i - 1], ${SENT_SLOTS} * bms)
  end
end
local wait = math.ceil(start - now)
if wait > 0 then redis.call('HINCRBY', KEYS[#KEYS], 'waitedMs:' .. ARGV[3], wait) end
return wait
`,
);

/**
 * Lua: `holdLane(key, now, ms)` holds a lane's hold key for `ms` from `now` (epoch ms) unless a longer hold is in place.
 * HOLD's, and the share script's while a lane yields after a crossing (share-yield.ts).
 */
export const HOLD_LANE_LUA = `
local function holdLane(key, now, ms)
  if redis.call('PTTL', key) < ms then
    redis.call('SET', key, string.format('%.0f', now + ms), 'PX', ms)
  end
end
`;

/**
 * Blocks one or more lanes for every process until the service's reset (a 429 answered).
 * KEYS: the hold keys, then the stats hash. ARGV: ms from now, the class answered 429. A longer hold already
 * in place is kept.
 */
export const HOLD = redisScript(
  'budgetHold',
  `
local ms = tonumber(ARGV[1])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
${HOLD_LANE_LUA}
for i = 1, #KEYS - 1 do holdLane(KEYS[i], now, ms) end
redis.call('HINCRBY', KEYS[#KEYS], 'holds:' .. ARGV[2], 1)
return 1
`,
);
