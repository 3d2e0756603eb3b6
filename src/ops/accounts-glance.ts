import type { AccountConfig } from '../../config/accounts.js';
import { defaults } from '../../config/defaults.js';
import { Queue } from 'bullmq';
import type { FeedPart } from '../feed/feed-kind.js';
import type { StreamName } from '../records/stream-name.js';
import { intakeQueueName } from '../queue/intake-queue.js';
import { callHoldsFrom } from '../queue/hold/call-hold.js';
import { outageFrom, type OutageState } from '../queue/hold/outage-state.js';
import { breakerFrom } from '../queue/hold/refusal-state.js';
import type { ChainableCommander } from 'ioredis';
import { isCluster, redisKeys, type RedisConnection as Redis } from '../redis/connection.js';
import { defineScript, queueScript, redisScript } from '../redis/scripts.js';
import { behindSeconds, laggingSeconds } from './feed-lag.js';
import { failedNowCount, streamFailures } from './failures-now.js';

/**
 * Every account at a glance, for `status` over many accounts and the dashboard's all-accounts page (the one reader of
 * every account's state): read from Redis in pipelines of many accounts (one account's on a Redis Cluster: its keys
 * share its hash tag), several in flight at once; only reads, so it answers while Redis is full. No BullMQ queue is
 * opened and no job read, except the failed ones of the accounts that have any (to leave out the failures a newer
 * version of their record superseded, as `status` of one account counts them).
 */

/** One stream of an account at a glance. */
export interface StreamGlance {
  stream: string;
  /** Jobs not yet taken: waiting (paused too), delayed, prioritized. */
  waiting: number;
  active: number;
  /** Failed now: record jobs not superseded, and import batches. */
  failed: number;
  /** Completed jobs kept (synced, or left as they were: the words of `status`'s COMPLETED), and in the last hour. */
  completed: number;
  completedLastHour: number;
  /** Its hold for refusals: since when (ISO) and why, while paused. */
  paused: { since: string | null; reason: string | null } | null;
  /** The latest pull's failure, while it is the latest news. */
  pullError: string | null;
  /** Seconds since the feed was last caught up (what `status` and the dashboard show); null when it never was. */
  behindSeconds: number | null;
  /** Seconds the feed has been falling behind (as alerts judge it: ALERT_LAG_SECONDS), when past the account's limit. */
  laggingSeconds: number | null;
  /** When its feed was last polled (ISO); null before the first pull. */
  lastPollAt: string | null;
}

/** One account at a glance. */
export interface AccountGlance {
  account: string;
  prefix: string;
  outage: Pick<OutageState, 'since' | 'reason'> | null;
  /** The named calls held now: only the jobs whose next step is one wait. */
  heldCalls: Array<{ call: string; label: string; since: string | null }>;
  streams: StreamGlance[];
}

/** An account to read: its name, its prefix, and the lag past which its feed needs a person (null: it does not pull). */
export interface GlanceTarget {
  name: string;
  prefix: string;
  lagLimitSeconds: number | null;
}

/** What the glance reads of a kind: its stream, and how its lag is judged. */
export interface GlanceKind {
  stream: StreamName;
  feed: Pick<FeedPart, 'lag'>;
}

// prettier-ignore
const fields = [
  'wait', 'paused', 'delayed', 'prioritized', 'active', 'failed', 'completed', 'intakeFailed', 'breaker', 'feed', 'metrics', 'metricsData',
] as const;
const PER_STREAM = fields.length;

/**
 * One account's reads in one script (its keys share the account's hash tag, so a Redis Cluster runs it on one node),
 * sent in pipelines of many accounts. KEYS: its outage and call holds, then per stream (ARGV[1] of them) the
 * `PER_STREAM` keys of `fields`. Answers the outage's and call holds' fields, then per stream `PER_STREAM` values, in
 * `fields`' order. It only reads (flagged so: Redis 7 runs it while full, OOM under noeviction).
 */
const GLANCE = redisScript(
  'accountGlance',
  `#!lua flags=no-writes
local out = { redis.call('HGETALL', KEYS[1]), redis.call('HGETALL', KEYS[2]) }
for s = 0, tonumber(ARGV[1]) - 1 do
  local k = 2 + s * ${PER_STREAM}
  for i, c in ipairs({ 'LLEN', 'LLEN', 'ZCARD', 'ZCARD', 'LLEN', 'ZCARD', 'ZCARD', 'ZCARD', 'HGETALL', 'HGETALL' }) do
    out[#out + 1] = redis.call(c, KEYS[k + i])
  end
  out[#out + 1] = redis.call('HMGET', KEYS[k + 11], 'count', 'prevTS', 'prevCount')
  out[#out + 1] = redis.call('LRANGE', KEYS[k + 12], 0, 59)
end
return out
`,
);

/** Queues one account's script into a pipeline (its keys in GLANCE's order). */
function queueReads(p: ChainableCommander, prefix: string, streams: readonly string[]): void {
  const keys = redisKeys(prefix);
  const bull = (queue: string, type: string) => `${prefix}:${queue}:${type}`;
  const all = [keys.outage(), keys.callHolds()];
  for (const s of streams) {
    all.push(...['wait', 'paused', 'delayed', 'prioritized', 'active', 'failed', 'completed'].map((t) => bull(s, t)));
    all.push(bull(intakeQueueName(s), 'failed'), keys.breaker(s), keys.feedState(s));
    all.push(bull(s, 'metrics:completed'), bull(s, 'metrics:completed:data'));
  }
  queueScript(p, GLANCE, [all.length, ...all, streams.length]);
}

type Hash = Record<string, string>;
type Replies = Array<[Error | null, unknown]>;

/** A hash from HGETALL's answer in a script (its fields and values in turn). */
function hashOf(flat: unknown): Hash {
  const list = (flat ?? []) as string[];
  const out: Hash = {};
  for (let i = 0; i + 1 < list.length; i += 2) out[list[i]!] = list[i + 1]!;
  return out;
}

/** A time kept in Redis (ISO, or epoch ms as digits) as ISO; null when there is none. */
function isoOf(v: string | null | undefined): string | null {
  const ms = !v ? NaN : /^\d+$/.test(v) ? Number(v) : Date.parse(v);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

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

/** One stream's glance from its replies (`value(field)`: its reply to that read). */
function streamFrom(t: GlanceTarget, k: GlanceKind, value: (f: (typeof fields)[number]) => unknown, now: number): StreamGlance {
  const n = (f: (typeof fields)[number]) => Number(value(f) ?? 0);
  const breaker = breakerFrom(k.stream, hashOf(value('breaker')));
  const feed = hashOf(value('feed'));
  const limit = t.lagLimitSeconds;
  const lag = limit === null ? undefined : laggingSeconds({ stream: k.stream, ...feedNumbers, ...feed }, now, k.feed.lag);
  return {
    stream: k.stream,
    waiting: n('wait') + n('paused') + n('delayed') + n('prioritized'),
    active: n('active'),
    failed: n('failed') + n('intakeFailed'),
    completed: n('completed'),
    completedLastHour: lastHourOf(value('metrics') as Array<string | null>, value('metricsData') as string[], now),
    paused: breaker.paused ? { since: breaker.since, reason: breaker.reason } : null,
    // An empty field is none (a quiet poll clears it so: src/feed/feed-state.ts).
    pullError: feed.lastError || null,
    behindSeconds: behindSeconds(feed, now) ?? null,
    laggingSeconds: lag !== undefined && limit !== null && lag > limit ? lag : null,
    lastPollAt: isoOf(feed.lastPollAt),
  };
}

/** An account's glance from its script's answer. */
function glanceFrom(t: GlanceTarget, kinds: readonly GlanceKind[], values: readonly unknown[], now: number): AccountGlance {
  const value = (i: number): unknown => values[i];
  const outage = outageFrom(hashOf(value(0)));
  return {
    account: t.name,
    prefix: t.prefix,
    outage: outage.open ? { since: outage.since, reason: outage.reason } : null,
    heldCalls: callHoldsFrom(hashOf(value(1))).flatMap((c) => (c.held ? [{ call: c.call, label: c.label, since: c.since }] : [])),
    streams: kinds.map((k, i) => streamFrom(t, k, (f) => value(2 + i * PER_STREAM + fields.indexOf(f)), now)),
  };
}

/**
 * Reads a group of accounts' glances: one pipeline for the group (one account's on a Redis Cluster), then, for the
 * accounts whose BullMQ failed sets are not empty, their failed jobs.
 */
async function glancesOf(
  redis: Redis,
  group: readonly GlanceTarget[],
  kinds: readonly GlanceKind[],
  now: number,
): Promise<AccountGlance[]> {
  defineScript(redis, GLANCE);
  const p = redis.pipeline();
  for (const t of group)
    queueReads(
      p,
      t.prefix,
      kinds.map((k) => k.stream),
    );
  const replies = ((await p.exec()) ?? []) as Replies;
  const values = group.map((_, i) => {
    const [err, v] = replies[i] ?? [new Error('no reply')];
    if (err) throw err;
    return v as unknown[];
  });
  const out = group.map((t, i) => glanceFrom(t, kinds, values[i]!, now));
  for (const [i, g] of out.entries()) {
    const failing = kinds.filter((_, s) => Number(values[i]![2 + s * PER_STREAM + fields.indexOf('failed')] ?? 0) > 0);
    if (failing.length) await countFailedNow(redis, g, failing);
  }
  return out;
}

const feedNumbers = { pages: 0, recordsQueued: 0, duplicates: 0, invalid: 0 };

/** Leaves out of the failed counts the failures a newer version of their record superseded (status's failed now). */
async function countFailedNow(redis: Redis, glance: AccountGlance, failing: readonly GlanceKind[]): Promise<void> {
  const queues = new Map(failing.map((k) => [k.stream, new Queue(k.stream, { connection: redis, prefix: glance.prefix })]));
  // Unheard, BullMQ prints connection errors raw, past the logger; the reads still reject on their own.
  for (const q of queues.values()) q.on('error', () => undefined);
  try {
    const get = (stream: StreamName) => queues.get(stream)!;
    for (const k of failing) {
      const f = await streamFailures({ prefix: glance.prefix, redis, get }, k.stream);
      const st = glance.streams.find((s) => s.stream === k.stream)!;
      st.failed -= f.total - failedNowCount(f);
    }
  } finally {
    await Promise.all([...queues.values()].map((q) => q.close()));
  }
}

/** What the glance reads of an account of ACCOUNTS_FILE: its lag judged only when it pulls. */
export function glanceTargetOf(a: AccountConfig): GlanceTarget {
  return { name: a.name, prefix: a.config.redis.prefix, lagLimitSeconds: a.config.upstream ? a.config.alerts.lagSeconds : null };
}

/** Every account's glance, in the accounts' order: `inFlight` pipelines at a time over the one connection. */
export async function readAccountsGlance(
  redis: Redis,
  accounts: readonly GlanceTarget[],
  kinds: readonly GlanceKind[],
  o: { now?: number; inFlight?: number } = {},
): Promise<AccountGlance[]> {
  const now = o.now ?? Date.now();
  // A cluster routes a pipeline to one node: one account's (its keys share its hash tag); one server takes a group's.
  const size = isCluster(redis) ? 1 : defaults.statusAccountsPerPipeline;
  const groups: GlanceTarget[][] = [];
  for (let i = 0; i < accounts.length; i += size) groups.push(accounts.slice(i, i + size));
  const out: AccountGlance[][] = new Array(groups.length);
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < groups.length; i = next++) out[i] = await glancesOf(redis, groups[i]!, kinds, now);
  };
  await Promise.all(Array.from({ length: Math.min(o.inFlight ?? defaults.statusReadsInFlight, groups.length) }, lane));
  return out.flat();
}
