import type { RedisConnection as Redis, RedisKeys } from '../redis/connection.js';
import { redisScript, runScript } from '../redis/scripts.js';

/**
 * A stream's circuit breaker, shared in Redis by every process of the prefix (hash `keys.breaker(stream)`):
 * refusals about the account (not the record) counted in a row, any job that syncs resets the count (jobs that
 * fail for a reason of their own, such as bad records, neither count nor reset), and at the threshold the breaker
 * opens. The caller pauses the stream's queue; `resumeBreaker` closes it again.
 */

/** What one stream's breaker says, for status, /readyz, /metrics and the dashboard. */
export interface BreakerState {
  stream: string;
  paused: boolean;
  /** When it opened (ISO), while paused. */
  since: string | null;
  /** The refusal that opened it (`[CODE] message`), while paused. */
  reason: string | null;
  code: string | null;
  /** Refusals in a row so far (closed), or the count that opened it. */
  refusals: number;
  /** Whether the pause was told through the alert webhook. */
  alerted: boolean;
  /** What opened it: `repeated` when the same service refusal came again and again; null for refusals of the account. */
  by: string | null;
}

/** What one refusal did: the breaker was open already, this refusal opened it, or it is still closed. */
export type RefusalOutcome =
  | { state: 'open' }
  | { state: 'tripped'; refusals: number }
  /** `pushbacks`: how often this job has now been put back for a refusal while the breaker was closed. */
  | { state: 'closed'; refusals: number; pushbacks: number };

/** Longest reason kept (the error message, which the client has already stripped of credentials). */
const REASON_MAX = 300;
/** A job's pushback count outlives its refusals by this long, in ms. */
const PUSHBACK_TTL_MS = 24 * 3600_000;

/**
 * KEYS: breaker hash, pushback hash. ARGV: threshold, now (epoch ms), code, reason, job id, pushback TTL (ms).
 * Answers {state, n}: 'open' (n 0), 'tripped' (n refusals), or 'closed' (n this job's pushbacks; refusals in [3]).
 */
const REFUSE = redisScript(
  'breakerRefuse',
  `
if redis.call('HGET', KEYS[1], 'state') == 'open' then return {'open', 0, 0} end
local count = redis.call('HINCRBY', KEYS[1], 'count', 1)
if count >= tonumber(ARGV[1]) then
  redis.call('HSET', KEYS[1], 'state', 'open', 'since', ARGV[2], 'code', ARGV[3], 'reason', ARGV[4], 'trippedBy', ARGV[5])
  return {'tripped', count, count}
end
local pushbacks = redis.call('HINCRBY', KEYS[2], ARGV[5], 1)
redis.call('PEXPIRE', KEYS[2], ARGV[6])
return {'closed', pushbacks, count}
`,
);

/**
 * KEYS: breaker hash, streak list. ARGV: threshold, now (epoch ms), code, reason, job id, signature, streak TTL (ms).
 * The same service refusal again: counted while its signature repeats (another one starts a new streak); at the
 * threshold it opens the breaker ('tripped'); below it the job's id joins the streak (it fails; resume retries it).
 */
const REPEAT = redisScript(
  'breakerRepeat',
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
 * KEYS: breaker hash, streak list. A finished job: both counts start again (no write when they are 0 or the breaker
 * is open).
 */
const SUCCEED = redisScript(
  'breakerSucceed',
  `
local h = redis.call('HMGET', KEYS[1], 'count', 'sameCount', 'state')
if h[3] == 'open' then return 0 end
if h[1] and h[1] ~= '0' then redis.call('HSET', KEYS[1], 'count', 0) end
if h[2] then
  redis.call('HDEL', KEYS[1], 'sameSig', 'sameCount')
  redis.call('DEL', KEYS[2])
end
return 0
`,
);

/** How long the ids of a streak are kept for `resume`, in ms (a pause may last a weekend and more). */
const STREAK_TTL_MS = 30 * 24 * 3600_000;

/** Counts one account refusal met by a job of the stream; opens the breaker at `threshold` refusals in a row. */
export async function recordRefusal(
  redis: Redis,
  keys: RedisKeys,
  stream: string,
  r: { threshold: number; code: string; reason: string; jobId: string; now?: number },
): Promise<RefusalOutcome> {
  const reason = r.reason.length > REASON_MAX ? `${r.reason.slice(0, REASON_MAX)}…` : r.reason;
  const args = [
    2,
    keys.breaker(stream),
    keys.breakerPushbacks(stream),
    r.threshold,
    r.now ?? Date.now(),
    r.code,
    reason,
    r.jobId,
    PUSHBACK_TTL_MS,
  ];
  const [state, n, refusals] = (await runScript(redis, REFUSE, args)) as [string, number, number];
  if (state === 'open') return { state: 'open' };
  if (state === 'tripped') return { state: 'tripped', refusals: Number(n) };
  return { state: 'closed', refusals: Number(refusals), pushbacks: Number(n) };
}

/**
 * Counts one service refusal that may repeat for every record (the same code and `msg` from the service): at
 * `threshold` of the same in a row the breaker opens. Below it the job fails as before and its id is kept, so that
 * `resume` puts it back to work with the jobs that waited.
 */
export async function recordRepeat(
  redis: Redis,
  keys: RedisKeys,
  stream: string,
  r: { threshold: number; code: string; reason: string; jobId: string; signature: string; now?: number },
): Promise<{ state: 'open' | 'tripped' | 'closed'; same: number }> {
  const reason = r.reason.length > REASON_MAX ? `${r.reason.slice(0, REASON_MAX)}…` : r.reason;
  const args = [
    2,
    keys.breaker(stream),
    keys.breakerStreak(stream),
    r.threshold,
    r.now ?? Date.now(),
    r.code,
    reason,
    r.jobId,
    r.signature,
    STREAK_TTL_MS,
  ];
  const [state, same] = (await runScript(redis, REPEAT, args)) as ['open' | 'tripped' | 'closed', number];
  return { state, same: Number(same) };
}

/** A job of the stream ended well (synced, unchanged or skipped): refusals in a row end. */
export async function recordSuccess(redis: Redis, keys: RedisKeys, stream: string): Promise<void> {
  await runScript(redis, SUCCEED, [2, keys.breaker(stream), keys.breakerStreak(stream)]);
}

/**
 * The jobs a repeated refusal failed before it paused the stream (none when something else paused it), taken: the
 * list is gone after.
 */
export async function takeStreak(redis: Redis, keys: RedisKeys, stream: string, by: string | null): Promise<string[]> {
  const ids = by === 'repeated' ? await redis.lrange(keys.breakerStreak(stream), 0, -1) : [];
  await redis.del(keys.breakerStreak(stream));
  return ids;
}

/** The breaker of one stream as it is now. */
export async function readBreaker(redis: Redis, keys: RedisKeys, stream: string): Promise<BreakerState> {
  const h = await redis.hgetall(keys.breaker(stream));
  const paused = h.state === 'open';
  const since = paused && h.since ? new Date(Number(h.since)).toISOString() : null;
  return {
    stream,
    paused,
    since,
    reason: paused ? (h.reason ?? null) : null,
    code: paused ? (h.code ?? null) : null,
    refusals: Number(h.count ?? 0),
    alerted: h.alerted === '1',
    by: paused ? (h.by ?? null) : null,
  };
}

/** Whether the stream's breaker is open (one HGET: producers ask before each pull). */
export async function isPaused(redis: Redis, keys: RedisKeys, stream: string): Promise<boolean> {
  return (await redis.hget(keys.breaker(stream), 'state')) === 'open';
}

/** Marks the pause as told; answers false when another process told it already (so it is told once). */
export async function claimAlert(redis: Redis, keys: RedisKeys, stream: string): Promise<boolean> {
  return (await redis.hsetnx(keys.breaker(stream), 'alerted', '1')) === 1;
}

/** Gives the claim back (the webhook failed), so that the next look tells it again. */
export async function releaseAlert(redis: Redis, keys: RedisKeys, stream: string): Promise<void> {
  await redis.hdel(keys.breaker(stream), 'alerted');
}

/** Closes the breaker: count, reason and every job's pushbacks start afresh. Answers what it was before. */
export async function closeBreaker(redis: Redis, keys: RedisKeys, stream: string): Promise<BreakerState> {
  const before = await readBreaker(redis, keys, stream);
  await redis.del(keys.breaker(stream));
  await redis.del(keys.breakerPushbacks(stream));
  return before;
}
