import { redisScript } from '../../redis/scripts.js';
import { SHARE_WINDOW } from './share-window.js';
import { SHARE_YIELD } from './share-yield.js';

const lua = `
local k, sentKey, learntKey, holdKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local is429 = ARGV[1] == '1'
local L, R, reset, now = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local Lc, W, h = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
local floor, step, steps, beta = tonumber(ARGV[9]), tonumber(ARGV[10]), tonumber(ARGV[11]), tonumber(ARGV[12])
local ttl, bms, probe, burstPart = tonumber(ARGV[13]), tonumber(ARGV[14]), tonumber(ARGV[15]), tonumber(ARGV[16])
local proof, learntTtl, startStep, quietAbove = tonumber(ARGV[17]), tonumber(ARGV[18]), tonumber(ARGV[19]), tonumber(ARGV[20])
local startStepMs, crossKeep, yieldStepMs, pulseN = tonumber(ARGV[21]), tonumber(ARGV[22]), tonumber(ARGV[23]), tonumber(ARGV[24]) or 1
local t = redis.call('TIME')
local tnow = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local s = redis.call('HMGET', k, 'f', 'reason', 'since', 'at', 'win', 'own', 'winLen',
  'other', 'otherAt', 'otherPrev', 'decWin', 'limit', 'learned', 'hdrAt', 'win429', 'ceil', 'pstep', 'ss', 'yieldEnd', 'winR')
local f = tonumber(s[1]) or 1
local reason = s[2] or 'configured'
local stored, storedReason = f, reason
-- A slow start (budget-scripts.ts, ACQUIRE, on a fresh share): the share rises a step at a time from the start share
-- while no 429 comes (below), whatever the shape of the service's windows; the first 429 ends it.
local ss = s[18] == '1'
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
local hdrAt = tonumber(s[14]) or 0
local win429 = tonumber(s[15]) or 0
local ceil = tonumber(s[16])
local pstep = tonumber(s[17]) or probe
local src = nil
${SHARE_WINDOW}

-- Remaining on an answer that is not a 429: the service tells its state on every answer. Without it (headers on
-- 429s only), a 429 is all the evidence there is, and what the others spend is read from it.
if R >= 0 and not is429 then hdrAt = tnow end
local only429 = tnow - hdrAt > 2 * winLen
-- Remaining tells the service's state on every answer: no slow start there, the share starts from all of the budget
-- as it always did (a 429 ends a slow start too, below), whatever its reset (one within 2 s tells of no window, and
-- the share is then read from 429s, from all of the budget).
if ss and told then
  ss = false
  f = 1
  reason = 'configured'
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
    src = 'remaining'
  end
end

-- A 429 with headers on 429s only, the first of its window: the window is spent, all of it (the limit, or the
-- configured budget when the 429 does not say). Less what this program sent in it (the sent buckets, every process),
-- the rest is the others'. The window must be known: learned, or the configured one when the limit is the configured.
local estimated = false
if is429 and only429 and reset > 0 and reset ~= decWin and (learned or L <= 0 or L == Lc) then
  local total = L
  if total <= 0 then total = Lc * winLen / W end
  local wstart = reset - winLen
  local elapsed = now - wstart
  if elapsed >= minElapsed and elapsed <= winLen then
    local mine = 0
    local all = redis.call('HGETALL', sentKey)
    for i = 1, #all, 2 do
      local b, c = string.match(all[i + 1], '^(%d+):(%d+)$')
      if b and tonumber(b) * bms >= wstart and tonumber(b) * bms <= now then mine = mine + tonumber(c) end
    end
    other = math.max(0, total - mine) / elapsed
    otherAt = now
    otherPrev = nil
    if L <= 0 then L = total end
    estimated = true
    src = '429'
  end
end

-- The share the headers leave us, as a fraction of the configured budget (never above it).
local cap = nil
if L > 0 then
  local rateC = Lc / W
  -- The service's limit is compared with the configured one only once its window is known (two resets in a row):
  -- 60 in a window of 6 s is not 60 a minute. Until then the window's own pacing (fw below) reads Remaining as it is.
  local left = rateC
  if learned or estimated then left = L / winLen end
  if other and now - otherAt < 2 * winLen then left = left - other / h end
  cap = math.min(1, left / rateC)
end

-- Within the window: pace so that what Remaining leaves after the others lasts until the reset (a window overspent
-- before the share settled, as at start). Kept apart from the share: the next window starts from the share again.
-- A small part of what is left may go at once (fwBurst, acquire's tolerance): the pace is read again from the
-- Remaining of the answers after it, so it spreads only what the burst left.
local fw, fwBurst = nil, 0
if current and R >= 0 and reset - now >= 1000 then
  local d = math.min(reset - now, winLen)
  local spare = math.max(0, R - 1) - (other or 0) * d
  fwBurst = math.max(0, math.floor(spare * burstPart))
  fw = math.max(floor, math.min(1, (spare / d) / (Lc / W * h)))
  -- Never past the configured budget in its window: the burst and the paced rest within limit x headroom.
  fwBurst = math.max(0, math.min(fwBurst, math.floor(Lc * h * (1 - fw))))
end

${SHARE_YIELD}
local nf, why = f, reason
if is429 then
  -- Once per window of the service: every request in flight may be answered 429 for the same one. Not while the lane
  -- yields after a crossing: a 429 then tells of what went before it.
  if not yielding and ((reset > 0 and reset ~= decWin) or (reset <= 0 and tnow - at >= every)) then
    if estimated then
      -- Just under what the others leave (cap keeps the headroom's part of the limit free), and never up on a 429.
      nf = math.min(cap, f * 0.97)
      ceil = cap
      pstep = probe
      -- The crossing: the first 429 of a slow start, or of a share at the full budget. Where the 429 tells of no
      -- window's end (nearReset: a token bucket, a sliding window), one window's count is no measure of the others
      -- either way (a bucket spent sooner by its burst; a paced sender under a bucket's refill meets no 429 while it
      -- starves the others), so the share goes to crossKeep of what it was, and later 429s lower it from there, and
      -- it yields (share-yield.ts) until its own first request of the window leaves it. A fixed window's count is
      -- exact: what the others leave; its 429 holds until its end anyway.
      if ss or (f >= 1 and reason == 'configured') then
        if nearReset then
          nf = f * crossKeep
          yieldEnd = ownFirstLeaves(nf)
          yieldHold()
        end
        ceil = nf
      end
    else
      nf = f * beta
      if cap and cap < nf then nf = cap end
    end
    why = 'shared-429'
    ss = false
    if reset > 0 then decWin = reset end
  end
elseif ss then
  -- The slow start's probe: a step up every startStepMs (or window of the service, when shorter) without a 429, once
  -- this program (every process: the sent buckets) sent 'proof' of what its pace allowed in the last whole buckets
  -- that cover that time (two buckets at least; an idle program proves nothing). Where the others leave less, the
  -- step past it is what the first 429 finds.
  local period = math.min(startStepMs, winLen)
  if tnow - at >= period then
    local b1 = math.floor(tnow / bms)
    local b0 = b1 - math.max(2, math.ceil(period / bms))
    local sent = 0
    local all = redis.call('HGETALL', sentKey)
    for i = 1, #all, 2 do
      local b, c = string.match(all[i + 1], '^(%d+):(%d+)$')
      if b and tonumber(b) >= b0 and tonumber(b) < b1 then sent = sent + tonumber(c) end
    end
    -- What the pace allowed in those buckets: the share since the last step, a step lower each period before it.
    local allowed = 0
    for b = b0, b1 - 1 do
      local mid = (b + 0.5) * bms
      local fb = f
      if mid < at then fb = math.max(floor, f - startStep * (1 + math.floor((at - mid) / period))) end
      allowed = allowed + fb * bms * Lc * h / W
    end
    redis.call('HSET', k, 'ssProven', string.format('%.4f', sent / math.max(1, allowed)))
    -- (Sent in pulses, the buckets hold whole pulses: one request short of the proof is a pulse's edge, not idle time.)
    local short = 0
    if only429 and pulseN > 1 then short = pulseN - 1 end
    if sent >= proof * allowed - short then
      nf = math.min(1, f + startStep)
      if nf >= 1 then
        ss = false
        why = 'configured'
      end
    end
  end
elseif only429 and f < 1 then
  -- Probing with headers on 429s only: one small step a window of the service after a whole window without a 429,
  -- so that a step past the ceiling fills the window in its last second (a few 429s) rather than for its last
  -- quarter (a stream of them to the others). Steps grow once the share passed the last ceiling well (the others
  -- spend less now).
  -- From the last ceiling a 429 showed to three steps above it (where what the others leave was found, the headroom
  -- above it), a step only every quietAbove windows: each step past what they leave costs them the end of a window.
  local quiet = winLen
  if ceil ~= nil and f >= ceil - probe / 2 and f < ceil + 3 * probe - probe / 2 then quiet = quietAbove * winLen end
  if tnow - at >= quiet then
    local up = probe
    if ceil == nil or f >= ceil + 5 * probe then
      up = math.min(0.1, pstep * 2)
      pstep = up
    end
    nf = math.min(1, f + up)
    if nf >= 1 then why = 'configured' else why = 'probing' end
  end
elseif not only429 and cap and cap < f - 0.01 then
  nf = math.max(cap, f * 0.5)
  if other and other * winLen > 0.02 * L then why = 'shared-remaining' else why = 'service-limit' end
elseif not only429 and f < 1 and tnow - at >= every then
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
if nf ~= stored or why ~= storedReason then changed = 1 end
if nf ~= stored then at = tnow end
if nf >= 1 then since = 0 elseif since == 0 then since = tnow end

redis.call('HSET', k, 'f', string.format('%.4f', nf), 'reason', why, 'since', since, 'at', at,
  'win', win, 'own', own, 'winLen', winLen, 'decWin', decWin, 'learned', learned and '1' or '0',
  'hdrAt', hdrAt, 'win429', win429, 'pstep', pstep, 'ss', ss and '1' or '0', 'yieldEnd', yieldEnd,
  'pulse', only429 and '1' or '0', 'winR', winR)
if ceil then redis.call('HSET', k, 'ceil', string.format('%.4f', ceil)) end
if other then redis.call('HSET', k, 'other', string.format('%.9f', other), 'otherAt', otherAt) end
if src then redis.call('HSET', k, 'otherSrc', src) end
if otherPrev then redis.call('HSET', k, 'otherPrev', string.format('%.9f', otherPrev)) else redis.call('HDEL', k, 'otherPrev') end
if fw then redis.call('HSET', k, 'fw', string.format('%.4f', fw), 'fwUntil', reset, 'fwBurst', fwBurst) end
if L > 0 then redis.call('HSET', k, 'limit', L) end
if R >= 0 then redis.call('HSET', k, 'remaining', R) end
if reset > 0 then redis.call('HSET', k, 'reset', reset) end
redis.call('PEXPIRE', k, ttl)
-- What was learnt with headers on 429s only (the share, its ceiling, when), for the account's next process: written
-- when it changes, and again every tenth of its life while it holds. A slow start under way leaves its last step
-- (ss), from which the next process goes on: a chain of short runs alone rises as one long run does.
if ss and only429 and nf ~= stored then
  redis.call('HSET', learntKey, 'f', string.format('%.4f', nf), 'at', tnow, 'reason', why, 'ss', '1')
  redis.call('PEXPIRE', learntKey, learntTtl)
elseif not ss and only429 then
  local lastAt = tonumber(redis.call('HGET', learntKey, 'at')) or 0
  if nf ~= stored or tnow - lastAt >= learntTtl / 10 then
    redis.call('HSET', learntKey, 'f', string.format('%.4f', nf), 'at', tnow, 'reason', why, 'ss', '0')
    if ceil then redis.call('HSET', learntKey, 'ceil', string.format('%.4f', ceil)) end
    redis.call('PEXPIRE', learntKey, learntTtl)
  end
end
local otherPerMinute = ''
if other then otherPerMinute = string.format('%.1f', other * 60000) end
return { string.format('%.4f', nf), why, changed, otherPerMinute }
`;

/**
 * One answer's evidence about a shared budget, applied to the lane's share (AIMD, docs/service-client.md "Sharing
 * the budget"). KEYS[1]: the lane's share hash. ARGV: 429 (1/0), X-RateLimit-Limit, -Remaining, -Reset (epoch ms; -1
 * when absent), the process's now (ms, for the window: the reset is in the service's clock), the configured limit,
 * its window (ms), headroom, floor (fraction), additive step (fraction), steps per window of the service (the
 * window is learned from two resets in a row, else the configured one), multiplicative factor, the hash's TTL (ms),
 * the lane's sent buckets' length (ms), the probe's step with headers on 429s only (fraction), the part of what a
 * window has left that may go at once (fraction), the part of what its pace allowed a slow start must have seen this
 * program send for its next step (fraction), the learnt hash's TTL (ms), the slow start's step (fraction), the windows
 * between the probe's steps at or above the last ceiling, the slow start's time between steps (ms), the part of
 * the share a crossing keeps where its reset is within 2 s (fraction), the hold of a 429 while the lane yields after a crossing (ms),
 * the requests of a pulse (budget-scripts.ts, ACQUIRE; 1: none).
 * KEYS[2]: the lane's sent hash (budget-scripts.ts, ACQUIRE); KEYS[3]: the lane's learnt hash for the account (what a
 * fresh process starts from); KEYS[4]: the lane's hold key (held while it yields after a crossing).
 * Answers { factor, reason, changed (1/0), others' requests a minute or '' }.
 */
export const SHARE = redisScript('budgetShare', lua);
