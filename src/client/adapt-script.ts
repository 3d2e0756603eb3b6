import { createHash } from 'node:crypto';
import type { LuaScript } from './budget-scripts.js';

const lua = `
local k = KEYS[1]
local is429 = ARGV[1] == '1'
local L, R, reset, now = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local Lc, W, h = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
local floor, step, steps, beta = tonumber(ARGV[9]), tonumber(ARGV[10]), tonumber(ARGV[11]), tonumber(ARGV[12])
local ttl = tonumber(ARGV[13])
local t = redis.call('TIME')
local tnow = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local s = redis.call('HMGET', k, 'f', 'reason', 'since', 'at', 'win', 'own', 'winLen',
  'other', 'otherAt', 'otherPrev', 'decWin', 'limit', 'learned')
local f = tonumber(s[1]) or 1
local reason = s[2] or 'configured'
local since = tonumber(s[3]) or 0
local at = tonumber(s[4]) or 0
local win = tonumber(s[5]) or 0
local own = tonumber(s[6]) or 0
local winLen = tonumber(s[7]) or W
local other = tonumber(s[8])
local otherAt = tonumber(s[9]) or 0
local otherPrev = tonumber(s[10])
local decWin = tonumber(s[11]) or 0
if L <= 0 then L = tonumber(s[12]) or -1 end
local learned = s[13] == '1'

-- The service's window: a later reset starts a new one (a shorter length than configured is learned from two in a
-- row); an answer of an older window (late, out of order) counts for nothing. A 429 was not counted by the service.
local current = false
if reset > 0 and not is429 then
  if reset > win then
    if win > 0 and reset - win >= 1000 and reset - win <= winLen then
      winLen = reset - win
      learned = true
    end
    if other and now - otherAt < 2 * winLen then otherPrev = other end
    win = reset
    own = 0
  end
  if reset == win then
    own = own + 1
    current = true
  end
end

-- Steps back up, and the least time into a window before its use is read, go by the service's window.
local every, minElapsed = winLen / steps, winLen / 30

-- What the others spend: the window's use (limit - remaining) less our own answers in it, a rate per ms; early in a
-- window blended with the last window's figure.
if current and R >= 0 and L > 0 then
  local elapsed = math.min(winLen, winLen - (reset - now))
  if elapsed >= minElapsed then
    local cur = math.max(0, (L - R) - own) / elapsed
    local w = math.min(1, elapsed / (winLen / 4))
    if otherPrev then cur = w * cur + (1 - w) * otherPrev end
    other = cur
    otherAt = now
  end
end

-- The share the headers leave us, as a fraction of the configured budget (never above it).
local cap = nil
if L > 0 then
  local rateC = Lc / W
  -- The service's limit is compared with the configured one only once its window is known (two resets in a row):
  -- 60 in a window of 6 s is not 60 a minute. Until then the window's own pacing (fw below) reads Remaining as it is.
  local left = rateC
  if learned then left = L / winLen end
  if other and now - otherAt < 2 * winLen then left = left - other / h end
  cap = math.min(1, left / rateC)
end

-- Within the window: pace so that what Remaining leaves after the others lasts until the reset (a window overspent
-- before the share settled, as at start). Kept apart from the share: the next window starts from the share again.
local fw = nil
if current and R >= 0 and reset - now >= 1000 then
  local d = math.min(reset - now, winLen)
  local left = (math.max(0, R - 1) - (other or 0) * d) / d
  fw = math.max(floor, math.min(1, left / (Lc / W * h)))
end

local nf, why = f, reason
if is429 then
  -- Once per window of the service: every request in flight may be answered 429 for the same one.
  if (reset > 0 and reset ~= decWin) or (reset <= 0 and tnow - at >= every) then
    nf = f * beta
    if cap and cap < nf then nf = cap end
    why = 'shared-429'
    if reset > 0 then decWin = reset end
  end
elseif cap and cap < f - 0.01 then
  nf = math.max(cap, f * 0.5)
  if other and other * winLen > 0.02 * L then why = 'shared-remaining' else why = 'service-limit' end
elseif f < 1 and tnow - at >= every then
  local up = math.min(1, f + step)
  if cap and up > cap then up = math.max(f, cap) end
  if up > f then
    nf = up
    if nf >= 1 then why = 'configured' else why = 'probing' end
  end
end
if nf < floor then
  nf = floor
  why = 'floor'
end
local changed = 0
if nf ~= f or why ~= reason then changed = 1 end
if nf ~= f then at = tnow end
if nf >= 1 then since = 0 elseif since == 0 then since = tnow end

redis.call('HSET', k, 'f', string.format('%.4f', nf), 'reason', why, 'since', since, 'at', at,
  'win', win, 'own', own, 'winLen', winLen, 'decWin', decWin, 'learned', learned and '1' or '0')
if other then redis.call('HSET', k, 'other', string.format('%.9f', other), 'otherAt', otherAt) end
if otherPrev then redis.call('HSET', k, 'otherPrev', string.format('%.9f', otherPrev)) end
if fw then redis.call('HSET', k, 'fw', string.format('%.4f', fw), 'fwUntil', reset) end
if L > 0 then redis.call('HSET', k, 'limit', L) end
if R >= 0 then redis.call('HSET', k, 'remaining', R) end
if reset > 0 then redis.call('HSET', k, 'reset', reset) end
redis.call('PEXPIRE', k, ttl)
local otherPerMinute = ''
if other then otherPerMinute = string.format('%.1f', other * 60000) end
return { string.format('%.4f', nf), why, changed, otherPerMinute }
`;

/**
 * One answer's evidence about a shared budget, applied to the lane's share (AIMD, docs/service-client.md "Sharing
 * the budget"). KEYS: the lane's share hash. ARGV: 429 (1/0), X-RateLimit-Limit, -Remaining, -Reset (epoch ms; -1
 * when absent), the process's now (ms, for the window: the reset is in the service's clock), the configured limit,
 * its window (ms), headroom, floor (fraction), additive step (fraction), steps per window of the service (the
 * window is learned from two resets in a row, else the configured one), multiplicative factor, the hash's TTL (ms).
 * Answers { factor, reason, changed (1/0), others' requests a minute or '' }.
 */
export const ADAPT: LuaScript = { lua, sha: createHash('sha1').update(lua).digest('hex') };
