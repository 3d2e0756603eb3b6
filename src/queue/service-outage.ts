import type { RedisConnection as Redis, RedisKeys } from '../redis/connection.js';
import { redisScript, runScript } from '../redis/scripts.js';

/**
 * The service down for everything, shared in Redis by every process of the prefix (hash `keys.outage()`): jobs that
 * met the service down (5xx, refused or reset connections, time-outs) are counted in a row, any job that syncs ends
 * the row, and at the threshold the outage opens. While it is open every stream holds (its queue paused, its producer
 * pulling nothing, its jobs waiting with their progress and no attempt spent), and one read probes the service at
 * growing intervals (`claimProbe`); the first answer ends it (`endOutage`) and the streams go on by themselves.
 */

/** What the outage state says, for status, /readyz, /metrics, alerts and the dashboard. */
export interface OutageState {
  open: boolean;
  /** When it opened (ISO), while open. */
  since: string | null;
  /** The failure that opened it (`[CODE] message`), while open. */
  reason: string | null;
  /** Failures in a row so far (closed), or the count that opened it. */
  failures: number;
  /** Probes sent while open, and the last one's time and result. */
  probes: number;
  lastProbeAt: string | null;
  lastProbe: string | null;
  /** The earliest time the next probe may go (ISO), while open. */
  nextProbeAt: string | null;
  /** Whether the outage was told through the alert webhook (it lasted OUTAGE_ALERT_SECONDS). */
  alerted: boolean;
}

/** The last outage that ended, kept for alerts, status and the dashboard (`keys.outageLast()`, 30 days). */
export interface EndedOutage {
  since: string;
  endedAt: string;
  seconds: number;
  /** Jobs that waited (waiting, delayed, prioritized) when it ended. */
  waited: number;
  reason: string;
  /** Whether its start was alerted (then its end is alerted too), and whether the end was told. */
  alerted: boolean;
  endTold: boolean;
}

const REASON_MAX = 300;
/** A row of failures that no outage followed is forgotten after this long, in ms. */
const ROW_TTL_MS = 24 * 3600_000;
/** How long the last ended outage is kept, in ms. */
const ENDED_TTL_MS = 30 * 24 * 3600_000;

/**
 * KEYS: outage hash. ARGV: threshold, now (epoch ms), reason, first probe delay (ms), row TTL (ms).
 * Answers {state, failures}: 'open' (already), 'tripped' (this failure opened it), 'closed' (below the threshold).
 */
const DOWN = redisScript(
  'outageDown',
  `
if redis.call('HGET', KEYS[1], 'state') == 'open' then return {'open', 0} end
local n = redis.call('HINCRBY', KEYS[1], 'failures', 1)
if n >= tonumber(ARGV[1]) then
  redis.call('HSET', KEYS[1], 'state', 'open', 'since', ARGV[2], 'reason', ARGV[3], 'probeDelay', ARGV[4],
    'nextProbe', tonumber(ARGV[2]) + tonumber(ARGV[4]), 'probes', 0)
  redis.call('PERSIST', KEYS[1])
  return {'tripped', n}
end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return {'closed', n}
`,
);

/** KEYS: outage hash. A job synced: the row of failures ends (nothing written when there is none, or while open). */
const UP = redisScript(
  'outageUp',
  `
local h = redis.call('HMGET', KEYS[1], 'state', 'failures')
if h[1] == 'open' or not h[2] then return 0 end
redis.call('DEL', KEYS[1])
return 1
`,
);

/**
 * KEYS: outage hash. ARGV: now (epoch ms), longest probe delay (ms). Answers 1 when this process is to probe now (the
 * next probe is due, and moved one doubled delay ahead), else 0.
 */
const CLAIM = redisScript(
  'outageClaim',
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
 * KEYS: outage hash, ended hash. ARGV: since (as opened, epoch ms), now, waited, ended TTL (ms).
 * Ends the outage opened at `since` (another process may have ended it first: answers 0 then).
 */
const END = redisScript(
  'outageEnd',
  `
local h = redis.call('HMGET', KEYS[1], 'state', 'since', 'reason', 'alerted')
if h[1] ~= 'open' or h[2] ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('HSET', KEYS[2], 'since', ARGV[1], 'endedAt', ARGV[2], 'waited', ARGV[3], 'reason', h[3] or '', 'alerted', h[4] or '0')
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return 1
`,
);

const iso = (ms: string | undefined) => (ms ? new Date(Number(ms)).toISOString() : null);

/** Counts the service down for one job; opens the outage at `threshold` in a row. */
export async function recordServiceDown(
  redis: Redis,
  keys: RedisKeys,
  r: { threshold: number; reason: string; firstProbeMs: number; now?: number },
): Promise<{ state: 'open' | 'tripped' | 'closed'; failures: number }> {
  const reason = r.reason.length > REASON_MAX ? `${r.reason.slice(0, REASON_MAX)}…` : r.reason;
  const [state, n] = (await runScript(redis, DOWN, [
    1,
    keys.outage(),
    r.threshold,
    r.now ?? Date.now(),
    reason,
    r.firstProbeMs,
    ROW_TTL_MS,
  ])) as ['open' | 'tripped' | 'closed', number];
  return { state, failures: Number(n) };
}

/** A job synced: failures in a row end. */
export async function recordServiceUp(redis: Redis, keys: RedisKeys): Promise<void> {
  await runScript(redis, UP, [1, keys.outage()]);
}

/** Whether the service is held as down (one HGET: producers and each process's look ask it). */
export async function isOutage(redis: Redis, keys: RedisKeys): Promise<boolean> {
  return (await redis.hget(keys.outage(), 'state')) === 'open';
}

/** The outage as it is now. */
export async function readOutage(redis: Redis, keys: RedisKeys): Promise<OutageState> {
  const h = await redis.hgetall(keys.outage());
  const open = h.state === 'open';
  return {
    open,
    since: open ? iso(h.since) : null,
    reason: open ? (h.reason ?? null) : null,
    failures: Number(h.failures ?? 0),
    probes: Number(h.probes ?? 0),
    lastProbeAt: open ? iso(h.lastProbeAt) : null,
    lastProbe: open ? (h.lastProbe ?? null) : null,
    nextProbeAt: open ? iso(h.nextProbe) : null,
    alerted: h.alerted === '1',
  };
}

/** The epoch ms the open outage started at, as stored (what `endOutage` is given), or undefined when none is open. */
export async function openedAt(redis: Redis, keys: RedisKeys): Promise<string | undefined> {
  const [state, since] = await redis.hmget(keys.outage(), 'state', 'since');
  return state === 'open' && since ? since : undefined;
}

/** Whether this process is to probe now (one process per due probe, across every process of the prefix). */
export async function claimProbe(redis: Redis, keys: RedisKeys, maxDelayMs: number, now = Date.now()): Promise<boolean> {
  return Number(await runScript(redis, CLAIM, [1, keys.outage(), now, maxDelayMs])) === 1;
}

/** Notes what the last probe met (the service still down), for status. */
export async function noteProbe(redis: Redis, keys: RedisKeys, result: string): Promise<void> {
  const text = result.length > REASON_MAX ? `${result.slice(0, REASON_MAX)}…` : result;
  // Only while still open: a probe answered late must not bring a closed outage back.
  if ((await redis.hget(keys.outage(), 'state')) === 'open') await redis.hset(keys.outage(), 'lastProbe', text);
}

/** Ends the outage that opened at `since`; answers false when another process ended it first. */
export async function endOutage(redis: Redis, keys: RedisKeys, since: string, waited: number, now = Date.now()): Promise<boolean> {
  return Number(await runScript(redis, END, [2, keys.outage(), keys.outageLast(), since, now, waited, ENDED_TTL_MS])) === 1;
}

/** The last outage that ended (within 30 days), if any. */
export async function readLastOutage(redis: Redis, keys: RedisKeys): Promise<EndedOutage | undefined> {
  const h = await redis.hgetall(keys.outageLast());
  if (!h.since || !h.endedAt) return undefined;
  return {
    since: new Date(Number(h.since)).toISOString(),
    endedAt: new Date(Number(h.endedAt)).toISOString(),
    seconds: Math.round((Number(h.endedAt) - Number(h.since)) / 1000),
    waited: Number(h.waited ?? 0),
    reason: h.reason ?? '',
    alerted: h.alerted === '1',
    endTold: h.endTold === '1',
  };
}

/** Marks the open outage as told; false when another process told it already. */
export async function claimOutageAlert(redis: Redis, keys: RedisKeys): Promise<boolean> {
  if (!(await isOutage(redis, keys))) return false;
  return (await redis.hsetnx(keys.outage(), 'alerted', '1')) === 1;
}

/** Marks the end of the last outage as told; false when another process told it already. */
export async function claimEndAlert(redis: Redis, keys: RedisKeys): Promise<boolean> {
  return (await redis.hsetnx(keys.outageLast(), 'endTold', '1')) === 1;
}

/** Gives a claim back (the webhook failed), so that the next look tells it again. */
export async function releaseOutageAlert(redis: Redis, keys: RedisKeys, which: 'start' | 'end'): Promise<void> {
  if (which === 'start') await redis.hdel(keys.outage(), 'alerted');
  else await redis.hdel(keys.outageLast(), 'endTold');
}
