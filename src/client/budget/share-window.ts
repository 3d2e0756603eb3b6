/**
 * The share script's reading of the service's window (share-script.ts): a fragment of its Lua, in its scope (is429,
 * L, R, reset, now, W, Lc, s, win, own, winLen, learned, other, otherAt, otherPrev, win429). It learns the window's
 * length from two resets in a row, counts this program's answers in the current window (`current`, `own`), and reads
 * a Remaining whose reset is within 2 s as no window's (docs/budget-start.md, "Remaining with no window's end"). It
 * sets `winR`, `told` (the answer carried Remaining, whatever its reset) and `current` for what follows.
 */
export const SHARE_WINDOW = `
-- Whether the service's limit over a gap of d ms between two resets is about the configured budget (a quarter
-- either way): a sliding window's or a token bucket's resets a second apart are no window of a budget a minute.
local function plausibleWindow(d)
  return L <= 0 or (L * W / d <= Lc * 1.25 and L * W / d >= Lc / 1.25)
end

-- Remaining whose reset is within 2 s, where no window that short was learnt, tells of no window to read it against
-- (a sliding window's oldest request leaving, a token bucket's next token; a fixed window's last 2 s): the answer
-- says no more than one without Remaining, and the share is read from 429s, as with the headers on 429s only
-- (docs/budget-start.md, "Remaining with no window's end"). A fixed window's other answers still carry it. Such
-- resets are kept apart (winR), for a window of 1 to 2 s of about the configured budget, learnt from two in a row.
local winR = tonumber(s[20]) or 0
local told = not is429 and R >= 0
if not is429 and R >= 0 and reset > 0 and reset - now <= 2000 and not (learned and winLen <= 2000) then
  local d = reset - winR
  if winR > 0 and d >= 1000 and d <= 2000 and plausibleWindow(d) then
    winLen, learned, win, own = d, true, winR, 0
  elseif reset > winR then
    winR = reset
  end
  if not learned or winLen > 2000 then R, reset = -1, -1 end
end
-- The service's window: a later reset starts a new one (a shorter length than configured is learned from two in a
-- row); an answer of an older window (late, out of order) counts for nothing. A 429 was not counted by the service.
local current = false
if reset > 0 and not is429 then
  if reset > win then
    if win > 0 and reset - win >= 1000 and reset - win <= winLen and (reset - win > 2000 or plausibleWindow(reset - win)) then
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
-- 429s of two windows in a row tell the window too, where they are all that carries the headers; only a gap at which
-- the service's limit is about the configured budget (a quarter either way): a sliding window's or a token bucket's
-- resets are a 429's own, a second or so away, and 1,200 in a second is no window of a budget of 1,200 a minute.
if reset > 0 and is429 and reset > win429 then
  local d = reset - win429
  if win429 > 0 and d >= 1000 and d <= winLen and plausibleWindow(d) then
    winLen = d
    learned = true
  end
  win429 = reset
end
`;
