import { redisScript } from '../../redis/scripts.js';

/**
 * The transitions of the holds of the service's named calls (call-hold.ts), one Lua script each, on one hash for
 * every call of the account (`keys.callHolds()`), its fields `{call}:{field}`: `state` is `held` while held.
 */

/** The Lua that names a call's field: `f('state')` is `{call}:state`. */
const FIELD = `local function f(n) return ARGV[1] .. ':' .. n end`;

/**
 * A request of the call met the service down. running(n) → running(n + 1), or held at the threshold; held: a
 * failed trial (its token) holds again, its next trial a doubled delay ahead (at most the longest).
 * KEYS: the hash. ARGV: call, now, threshold, reason, code, first delay (ms), longest delay (ms), trial token or ''.
 * Answers {state, next trial (epoch ms), n}: 'tripped' (this one held it, n failures), 'held' (n 1 when this was the
 * failed trial), 'closed' (n failures in a row so far).
 */
export const CALL_FAILED = redisScript(
  'callFailed',
  `${FIELD}
local now = tonumber(ARGV[2])
if redis.call('HGET', KEYS[1], f('state')) == 'held' then
  if ARGV[8] ~= '' and redis.call('HGET', KEYS[1], f('trial')) == ARGV[8] then
    local delay = math.min(tonumber(redis.call('HGET', KEYS[1], f('delay')) or ARGV[6]) * 2, tonumber(ARGV[7]))
    redis.call('HSET', KEYS[1], f('delay'), delay, f('next'), now + delay, f('lastTrial'), ARGV[4], f('lastTrialAt'), now)
    redis.call('HDEL', KEYS[1], f('trial'), f('trialUntil'))
    return {'held', now + delay, 1}
  end
  return {'held', tonumber(redis.call('HGET', KEYS[1], f('next')) or now), 0}
end
local n = redis.call('HINCRBY', KEYS[1], f('failures'), 1)
if n < tonumber(ARGV[3]) then return {'closed', 0, n} end
local first = tonumber(ARGV[6])
redis.call('HSET', KEYS[1], f('state'), 'held', f('since'), now, f('reason'), ARGV[4], f('code'), ARGV[5],
  f('delay'), first, f('next'), now + first, f('trials'), 0)
redis.call('HDEL', KEYS[1], f('probed'), f('probe'), f('lastTrial'), f('lastTrialAt'), f('trial'), f('trialUntil'))
redis.call('HINCRBY', KEYS[1], f('opened'), 1)
return {'tripped', now + first, n}
`,
);

/**
 * Whether a request of the call may go: running: yes; held: only as the trial, when one is due and none is out.
 * KEYS: the hash. ARGV: call, now, token, trial life (ms). Answers {'open'|'trial'|'held', next trial}.
 */
export const CALL_GATE = redisScript(
  'callGate',
  `${FIELD}
local h = redis.call('HMGET', KEYS[1], f('state'), f('next'), f('trial'), f('trialUntil'))
if h[1] ~= 'held' then return {'open', 0} end
local now = tonumber(ARGV[2])
local next = tonumber(h[2] or '0')
if h[3] and tonumber(h[4] or '0') > now then return {'held', next} end
if next > now then return {'held', next} end
redis.call('HSET', KEYS[1], f('trial'), ARGV[3], f('trialUntil'), now + tonumber(ARGV[4]))
redis.call('HINCRBY', KEYS[1], f('trials'), 1)
return {'trial', next}
`,
);

/**
 * A request of the call was answered (not the service down): held → running(0), the hold kept as the last one;
 * running(n) → running(0). KEYS: the hash. ARGV: call, now, what answered.
 * Answers {'released', since, trials} | {'cleared', 0, 0} | {'none', 0, 0}.
 */
export const CALL_ANSWERED = redisScript(
  'callAnswered',
  `${FIELD}
local h = redis.call('HMGET', KEYS[1], f('state'), f('since'), f('reason'), f('trials'), f('failures'), f('alerted'))
if h[1] == 'held' then
  redis.call('HDEL', KEYS[1], f('state'), f('since'), f('reason'), f('code'), f('delay'), f('next'), f('trial'),
    f('trialUntil'), f('failures'), f('probed'), f('probe'), f('lastTrial'), f('lastTrialAt'), f('trials'), f('alerted'),
    f('lastEndTold'))
  redis.call('HSET', KEYS[1], f('lastSince'), h[2], f('lastEnded'), ARGV[2], f('lastReason'), h[3] or '',
    f('lastTrials'), h[4] or '0', f('lastAnswer'), ARGV[3], f('lastAlerted'), h[6] or '0')
  return {'released', h[2], tonumber(h[4] or '0')}
end
if h[5] and h[5] ~= '0' then
  redis.call('HDEL', KEYS[1], f('failures'))
  return {'cleared', 0, 0}
end
return {'none', 0, 0}
`,
);

/** A trial that ended with no verdict (a 429, aborted) is given back: the next request may be the trial. ARGV: call, token. */
export const CALL_GIVE_BACK = redisScript(
  'callGiveBack',
  `${FIELD}
if redis.call('HGET', KEYS[1], f('trial')) ~= ARGV[2] then return 0 end
redis.call('HDEL', KEYS[1], f('trial'), f('trialUntil'))
return 1
`,
);

/**
 * Claims the one read that tells a held call from the service down (once per hold, across processes). ARGV: call,
 * now. Answers 1 when this process is to probe.
 */
export const CALL_CLAIM_PROBE = redisScript(
  'callClaimProbe',
  `${FIELD}
if redis.call('HGET', KEYS[1], f('state')) ~= 'held' then return 0 end
return redis.call('HSETNX', KEYS[1], f('probed'), ARGV[2])
`,
);

/**
 * The service answers again after an outage: every held call's trial is due now, its delay the first again.
 * KEYS: the hash. ARGV: now, first delay (ms), the calls. Answers how many were held.
 */
export const CALLS_DUE_NOW = redisScript(
  'callsDueNow',
  `
local n = 0
for i = 3, #ARGV do
  local c = ARGV[i]
  if redis.call('HGET', KEYS[1], c .. ':state') == 'held' then
    redis.call('HSET', KEYS[1], c .. ':next', ARGV[1], c .. ':delay', ARGV[2])
    redis.call('HDEL', KEYS[1], c .. ':trial', c .. ':trialUntil')
    n = n + 1
  end
end
return n
`,
);
