import { Queue } from 'bullmq';
import { callScopeLabel } from '../client/call-scope.js';
import { fieldsOf } from '../queue/hold/call-hold.js';
import type { StreamName } from '../records/stream-name.js';
import { redisKeys, type RedisConnection as Redis } from '../redis/connection.js';
import { redisScript, runScript } from '../redis/scripts.js';
import { failedNowCount, streamFailures } from './failures-now.js';

/** One stream of an account at a glance: its jobs, its hold and how far behind its feed is. */
export interface StreamSummary {
  stream: string;
  /** Waiting, delayed and prioritized: every job not yet taken. */
  waiting: number;
  active: number;
  failed: number;
  /** Completed jobs kept (synced, or left as they were: the words of `status`'s COMPLETED). */
  completed: number;
  /** Completed in the last hour (BullMQ's per-minute counts). */
  completedLastHour: number;
  /** The stream's hold for refusals (its breaker paused it): since when and why; null while it runs. */
  paused: { since: string | null; reason: string | null } | null;
  /** Seconds since the stream was last caught up; null when it never was. */
  behindSeconds: number | null;
  /** When its feed was last polled (ISO); null before the first pull. */
  lastPollAt: string | null;
}

/** An account at a glance, for the all-accounts page (a few reads per stream: no job is read unless one failed). */
export interface AccountSummary {
  account: string;
  prefix: string;
  streams: StreamSummary[];
  /** The hold for `outage` (the service down for every stream of the account): since when and why, while open. */
  outage: { since: string | null; reason: string | null } | null;
  /** The named calls held now (src/queue/hold/call-hold.ts): only the jobs whose next step is one wait. */
  heldCalls: Array<{ call: string; label: string; since: string | null }>;
}

/** An account to read: its name and its prefix. */
export interface SummaryTarget {
  account: string;
  prefix: string;
}

/** Accounts read at once (each one command: SUMMARY). */
const IN_FLIGHT = 64;
/**
 * An account's summary in one script (one command, one round trip; its keys share the account's hash tag, so a Redis
 * Cluster runs it on one node). KEYS: per stream (ARGV[1] of them) its BullMQ wait, delayed, prioritized, active,
 * failed and completed, its completed metrics hash and list, its breaker and its feed state; then the account's outage
 * and call holds. Answers per stream the counts, the metrics (count, prevTS, prevCount; the last 60 minutes), the
 * breaker (state, since, reason) and the feed (caughtUpAt, lastPollAt); then the outage (state, since, reason) and
 * the call holds' fields. It only reads (flagged so: Redis 7).
 */
const SUMMARY = redisScript(
  'accountSummary',
  // no-writes: Redis runs it while full (OOM under noeviction), when the page is most needed.
  `#!lua flags=no-writes
local n = tonumber(ARGV[1])
local out = {}
for s = 0, n - 1 do
  local k = s * 10
  out[s + 1] = {
    redis.call('LLEN', KEYS[k + 1]), redis.call('ZCARD', KEYS[k + 2]), redis.call('ZCARD', KEYS[k + 3]),
    redis.call('LLEN', KEYS[k + 4]), redis.call('ZCARD', KEYS[k + 5]), redis.call('ZCARD', KEYS[k + 6]),
    redis.call('HMGET', KEYS[k + 7], 'count', 'prevTS', 'prevCount'), redis.call('LRANGE', KEYS[k + 8], 0, 59),
    redis.call('HMGET', KEYS[k + 9], 'state', 'since', 'reason'), redis.call('HMGET', KEYS[k + 10], 'caughtUpAt', 'lastPollAt')
  }
end
out[n + 1] = redis.call('HMGET', KEYS[n * 10 + 1], 'state', 'since', 'reason')
out[n + 2] = redis.call('HGETALL', KEYS[n * 10 + 2])
return out
`,
);

/** A time kept in Redis (ISO, or epoch ms as digits) in epoch ms; NaN when there is none. */
function msOf(v: string | null | undefined): number {
  if (!v) return NaN;
  return /^\d+$/.test(v) ? Number(v) : Date.parse(v);
}
const isoOf = (v: string | null | undefined) => (Number.isNaN(msOf(v)) ? null : new Date(msOf(v)).toISOString());

/**
 * Jobs completed in the 60 minutes before `now`, from BullMQ's per-minute counts (its `metrics:completed` hash:
 * count, prevTS, prevCount; and the newest minutes first in its `:data` list), as the charts count them.
 */
export function lastHourOf(meta: ReadonlyArray<string | null>, data: readonly string[], now: number): number {
  const [count, prevTS, prevCount] = meta.map((v) => Number(v ?? 0) || 0) as [number, number, number];
  if (!prevTS) return 0;
  const open = Math.floor(prevTS / 60_000) * 60_000;
  const from = Math.floor(now / 60_000) * 60_000 - 59 * 60_000;
  let n = open >= from ? count - prevCount : 0;
  data.forEach((v, i) => {
    if (open - (i + 1) * 60_000 >= from) n += Number(v) || 0;
  });
  return n;
}

/** The keys a stream's summary reads (10: SUMMARY counts on it), in the order SUMMARY reads them. */
function streamKeys(prefix: string, stream: string): string[] {
  const q = (type: string) => `${prefix}:${stream}:${type}`;
  const keys = redisKeys(prefix);
  const counted = ['wait', 'delayed', 'prioritized', 'active', 'failed', 'completed'].map(q);
  return [...counted, q('metrics:completed'), q('metrics:completed:data'), keys.breaker(stream), keys.feedState(stream)];
}

/** One stream's summary from its part of SUMMARY's answer (its failed count is BullMQ's until `failedNow` corrects it). */
function streamOf(stream: string, r: unknown[], now: number): StreamSummary {
  const n = (i: number) => Number(r[i] ?? 0);
  const [state, since, reason] = r[8] as Array<string | null>;
  const [caughtUpAt, lastPollAt] = r[9] as Array<string | null>;
  const caughtUp = msOf(caughtUpAt);
  return {
    stream,
    waiting: n(0) + n(1) + n(2),
    active: n(3),
    failed: n(4),
    completed: n(5),
    completedLastHour: lastHourOf(r[6] as Array<string | null>, r[7] as string[], now),
    paused: state === 'open' ? { since: isoOf(since), reason: reason ?? null } : null,
    behindSeconds: Number.isNaN(caughtUp) ? null : Math.max(0, Math.round((now - caughtUp) / 1000)),
    lastPollAt: isoOf(lastPollAt),
  };
}

/** One account's summary in one script (SUMMARY), its failures still BullMQ's counts. */
async function readOne(redis: Redis, t: SummaryTarget, streams: readonly string[], now: number): Promise<AccountSummary> {
  const keys = redisKeys(t.prefix);
  const all = [...streams.flatMap((s) => streamKeys(t.prefix, s)), keys.outage(), keys.callHolds()];
  const values = (await runScript(redis, SUMMARY, [all.length, ...all, streams.length])) as unknown[][];
  const [state, since, reason] = values[streams.length] as Array<string | null>;
  const flat = values[streams.length + 1] as string[];
  const calls: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) calls[flat[i]!] = flat[i + 1]!;
  const held = [...new Set(Object.keys(calls).map((k) => k.slice(0, k.indexOf(':'))))]
    .map((call) => ({ call, f: fieldsOf(calls, call) }))
    .filter(({ f }) => f.state === 'held')
    .map(({ call, f }) => ({ call, label: callScopeLabel(call), since: isoOf(f.since) }));
  return {
    account: t.account,
    prefix: t.prefix,
    streams: streams.map((s, i) => streamOf(s, values[i]!, now)),
    outage: state === 'open' ? { since: isoOf(since), reason: reason ?? null } : null,
    heldCalls: held,
  };
}

/**
 * Failed now, as status counts it (src/ops/failures-now.ts): not a failure a newer version of its record superseded.
 * Read only for the streams with failed jobs, which are few; an idle account costs none of it.
 */
async function failedNow(redis: Redis, a: AccountSummary): Promise<void> {
  const failing = a.streams.filter((st) => st.failed > 0);
  if (!failing.length) return;
  const queues = new Map(failing.map((st) => [st.stream, new Queue(st.stream, { connection: redis, prefix: a.prefix })]));
  for (const q of queues.values()) q.on('error', () => undefined);
  try {
    const get = (s: StreamName) => queues.get(s)!;
    for (const st of failing) st.failed = failedNowCount(await streamFailures({ prefix: a.prefix, redis, get }, st.stream as StreamName));
  } finally {
    await Promise.all([...queues.values()].map((q) => q.close()));
  }
}

/**
 * Every account's summary, in the order given: one script per account (its jobs' counts, its holds, its feed), at
 * most IN_FLIGHT at once, then the failures of those with failed jobs told from the superseded ones.
 */
export async function readAccountSummaries(
  redis: Redis,
  targets: readonly SummaryTarget[],
  streams: readonly string[],
  now = Date.now(),
): Promise<AccountSummary[]> {
  const out: AccountSummary[] = new Array<AccountSummary>(targets.length);
  let next = 0;
  const lane = async () => {
    while (next < targets.length) {
      const i = next++;
      out[i] = await readOne(redis, targets[i]!, streams, now);
      await failedNow(redis, out[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, targets.length) }, lane));
  return out;
}
