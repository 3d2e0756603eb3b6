import { HOLD_LANE_LUA } from './budget-scripts.js';

/**
 * The share script's yield after a crossing (share-script.ts): a fragment of its Lua, in its scope (is429, tnow, now,
 * reset, sentKey, bms, winLen, Lc, W, h, holdKey, yieldStepMs, s, k). docs/budget-start.md, "After the crossing".
 */
export const SHARE_YIELD = `
${HOLD_LANE_LUA}
-- After a crossing (the first 429 of a slow start, or of a share at the full budget), until this program's first
-- request still counted leaves the service's window (a window after it was sent, whatever process sent it): where the
-- service counts what was sent over a window (sliding), every place this program takes then is one the others' oldest
-- requests left, theirs. So each 429 of that time holds the lane yieldStepMs (a longer hold is kept; twice the last
-- where the probe after it was refused) and lowers the share no further: the next request is the probe. A token
-- bucket refills in the pause, and the probe goes through; a fixed window's 429 holds until its end anyway.
local yieldEnd = tonumber(s[19]) or 0
-- When this program's requests of the window begin to leave it at the pace of the share given (its first bucket of
-- the sent ring that holds that pace's count, else its first at all), a window after they were sent.
local function ownFirstLeaves(share)
  local first, firstPaced = nil, nil
  local paced = 0.9 * share * bms * Lc * h / W
  local all = redis.call('HGETALL', sentKey)
  for i = 1, #all, 2 do
    local b, c = string.match(all[i + 1], '^(%d+):(%d+)$')
    b, c = tonumber(b), tonumber(c)
    if b and c > 0 and (b + 1) * bms > tnow - winLen then
      if first == nil or b < first then first = b end
      if c >= paced and (firstPaced == nil or b < firstPaced) then firstPaced = b end
    end
  end
  first = firstPaced or first
  if first == nil then return 0 end
  return (first + 1) * bms + winLen
end
-- A 429 within a step after the last hold ended (the probe after it refused: no room came in the pause, as where a
-- sliding window counts this program's own faster requests until they leave) doubles the hold; later, one step again.
local function yieldHold()
  local h = redis.call('HMGET', k, 'yieldHoldUntil', 'yieldHoldMs')
  local lastUntil, lastMs = tonumber(h[1]) or 0, tonumber(h[2]) or 0
  -- A request in flight answered while the hold lasts: the hold stands.
  if tnow < lastUntil then
    holdLane(holdKey, tnow, lastUntil - tnow)
    return
  end
  local step = yieldStepMs
  if tnow < lastUntil + yieldStepMs then step = 2 * lastMs end
  local ms = math.floor(math.min(step, yieldEnd - tnow))
  if ms >= 100 then
    holdLane(holdKey, tnow, ms)
    redis.call('HSET', k, 'yieldHoldUntil', tnow + ms, 'yieldHoldMs', step)
  end
end
-- A 429 whose reset is within 2 s tells of no window's end: a token bucket's next token, a sliding window's oldest
-- request leaving (a fixed window's 429 within 2 s of its end is held over by then).
local nearReset = reset > 0 and reset - now <= 2000
local yielding = is429 and nearReset and tnow < yieldEnd
if yielding then yieldHold() end
`;
