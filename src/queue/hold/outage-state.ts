import type { RedisConnection as Redis, RedisKeys } from '../../redis/connection.js';
import { runScript } from '../../redis/scripts.js';
import { clipReason } from './hold.js';
import { CLAIM_PROBE, CLEAR, COUNT, END_BY_PROBE } from './hold-scripts.js';

/**
 * The hold for `outage`: the service down for everything, one for the prefix, in Redis (hash `keys.outage()`): jobs
 * that met the service down (5xx, refused or reset connections, time-outs) are counted in a row, any job that syncs
 * ends the row, and at the threshold every stream is held (its queue paused, its producer pulling nothing, its jobs
 * waiting with their progress and no attempt spent), and one read probes the service at growing intervals
 * (`claimProbe`); the first answer releases it (`endOutage`) and the streams go on by themselves.
 */

/** What the outage hold says, for status, /readyz, /metrics, alerts and the dashboard. */
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

/** A row of failures that no outage followed is forgotten after this long, in ms. */
const ROW_TTL_MS = 24 * 3600_000;
/** How long the last ended outage is kept, in ms. */
const ENDED_TTL_MS = 30 * 24 * 3600_000;

const iso = (ms: string | undefined) => (ms ? new Date(Number(ms)).toISOString() : null);

/** Counts the service down for one job; holds every stream at `threshold` in a row. */
export async function recordServiceDown(
  redis: Redis,
  keys: RedisKeys,
  r: { threshold: number; reason: string; firstProbeMs: number; code?: string; jobId?: string; now?: number },
): Promise<{ state: 'open' | 'tripped' | 'closed'; failures: number }> {
  const args = [2, keys.outage(), keys.outage(), r.threshold, r.now ?? Date.now(), r.code ?? '', clipReason(r.reason)];
  const more = [r.jobId ?? '', 'failures', ROW_TTL_MS, Math.max(1, r.firstProbeMs), 0];
  const [state, , n] = (await runScript(redis, COUNT, [...args, ...more])) as ['open' | 'tripped' | 'closed', number, number];
  return { state, failures: Number(n) };
}

/** A job synced: failures in a row end. */
export async function recordServiceUp(redis: Redis, keys: RedisKeys): Promise<void> {
  await runScript(redis, CLEAR, [2, keys.outage(), keys.outage(), 'failures']);
}

/** Whether the service is held as down (one HGET: producers and each process's look ask it). */
export async function isOutage(redis: Redis, keys: RedisKeys): Promise<boolean> {
  return (await redis.hget(keys.outage(), 'state')) === 'open';
}

/** The outage as it is now. */
export async function readOutage(redis: Redis, keys: RedisKeys): Promise<OutageState> {
  return outageFrom(await redis.hgetall(keys.outage()));
}

/** The outage from its hash as read (`keys.outage()`; `status` reads many accounts' in a pipeline). */
export function outageFrom(h: Readonly<Record<string, string>>): OutageState {
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
  return Number(await runScript(redis, CLAIM_PROBE, [1, keys.outage(), now, maxDelayMs])) === 1;
}

/** Notes what the last probe met (the service still down), for status. */
export async function noteProbe(redis: Redis, keys: RedisKeys, result: string): Promise<void> {
  // Only while still open: a probe answered late must not bring a closed outage back.
  if ((await redis.hget(keys.outage(), 'state')) === 'open') await redis.hset(keys.outage(), 'lastProbe', clipReason(result));
}

/** held → running(0) by the probe: ends the outage that opened at `since`; false when another process ended it first. */
export async function endOutage(redis: Redis, keys: RedisKeys, since: string, waited: number, now = Date.now()): Promise<boolean> {
  const args = [2, keys.outage(), keys.outageLast(), since, now, waited, ENDED_TTL_MS];
  return Number(await runScript(redis, END_BY_PROBE, args)) === 1;
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
