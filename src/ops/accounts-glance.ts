import type { AccountConfig } from '../../config/accounts.js';
import { defaults } from '../../config/defaults.js';
import type { Kind } from '../kinds/kind.js';
import { intakeQueueName } from '../queue/intake-queue.js';
import { openStreamQueues } from '../queue/stream-queues.js';
import { callHoldsFrom } from '../queue/hold/call-hold.js';
import { outageFrom, type OutageState } from '../queue/hold/outage-state.js';
import { breakerFrom } from '../queue/hold/refusal-state.js';
import { redisKeys, type RedisConnection as Redis } from '../redis/connection.js';
import { laggingSeconds } from './feed-lag.js';
import { failedNowCount, streamFailures } from './failures-now.js';

/**
 * Every account at a glance, for `status` over many accounts: what a person has to look at, read from Redis in one
 * pipeline per account (its keys share its hash tag, so a Redis Cluster takes it whole), many accounts' pipelines in
 * flight at once; no BullMQ queue is opened and no job read, except the failed ones of the accounts that have any
 * (to leave out the failures a newer version of their record superseded, as `status` of one account counts them).
 */

/** One stream of an account at a glance. */
export interface StreamGlance {
  stream: string;
  /** Jobs not yet taken: waiting (paused too), delayed, prioritized. */
  waiting: number;
  /** Failed now: record jobs not superseded, and import batches. */
  failed: number;
  /** Its hold for refusals: since when (ISO) and why, while paused. */
  paused: { since: string | null; reason: string | null } | null;
  /** The latest pull's failure, while it is the latest news. */
  pullError: string | null;
  /** Seconds the feed has been falling behind (as alerts judge it: ALERT_LAG_SECONDS), when past the account's limit. */
  behindSeconds: number | null;
}

/** One account at a glance. */
export interface AccountGlance {
  account: string;
  prefix: string;
  outage: Pick<OutageState, 'since' | 'reason'> | null;
  /** The named calls held now (their labels: `shipment create`). */
  heldCalls: string[];
  streams: StreamGlance[];
}

const fields = ['wait', 'paused', 'delayed', 'prioritized', 'failed', 'intakeFailed', 'breaker', 'feed'] as const;
const PER_STREAM = fields.length;

/** Queues one account's reads into a pipeline: its outage and calls, then per stream `PER_STREAM` replies. */
function queueReads(redis: Redis, prefix: string, streams: readonly string[]) {
  const keys = redisKeys(prefix);
  const bull = (queue: string, type: string) => `${prefix}:${queue}:${type}`;
  const p = redis.pipeline().hgetall(keys.outage()).hgetall(keys.callHolds());
  for (const s of streams)
    p.llen(bull(s, 'wait'))
      .llen(bull(s, 'paused'))
      .zcard(bull(s, 'delayed'))
      .zcard(bull(s, 'prioritized'))
      .zcard(bull(s, 'failed'))
      .zcard(bull(intakeQueueName(s), 'failed'))
      .hgetall(keys.breaker(s))
      .hgetall(keys.feedState(s));
  return p;
}

type Hash = Record<string, string>;

/** Reads one account's glance (its failed record jobs only when BullMQ counts some). */
async function glanceOf(redis: Redis, a: AccountConfig, kinds: readonly Kind[], now: number): Promise<AccountGlance> {
  const prefix = a.config.redis.prefix;
  const streams = kinds.map((k) => k.stream);
  const replies = (await queueReads(redis, prefix, streams).exec()) ?? [];
  const value = (i: number): unknown => {
    const [err, v] = replies[i] ?? [new Error('no reply')];
    if (err) throw err;
    return v;
  };
  const outage = outageFrom(value(0) as Hash);
  const glance: AccountGlance = {
    account: a.name,
    prefix,
    outage: outage.open ? { since: outage.since, reason: outage.reason } : null,
    heldCalls: callHoldsFrom(value(1) as Hash).flatMap((c) => (c.held ? [c.label] : [])),
    streams: kinds.map((k, i) => {
      const at = 2 + i * PER_STREAM;
      const n = (f: (typeof fields)[number]) => Number(value(at + fields.indexOf(f)) ?? 0);
      const breaker = breakerFrom(k.stream, value(at + fields.indexOf('breaker')) as Hash);
      const feed = value(at + fields.indexOf('feed')) as Hash;
      const lag = a.config.upstream ? laggingSeconds({ stream: k.stream, ...feedNumbers, ...feed }, now, k.feed.lag) : undefined;
      const limit = a.config.alerts.lagSeconds ?? defaults.alertLagSeconds;
      return {
        stream: k.stream,
        waiting: n('wait') + n('paused') + n('delayed') + n('prioritized'),
        failed: n('failed') + n('intakeFailed'),
        paused: breaker.paused ? { since: breaker.since, reason: breaker.reason } : null,
        pullError: feed.lastError ?? null,
        behindSeconds: lag !== undefined && lag > limit ? lag : null,
      };
    }),
  };
  const recordFailed = kinds.filter((k, i) => n0(value(2 + i * PER_STREAM + fields.indexOf('failed'))) > 0);
  if (recordFailed.length) await countFailedNow(redis, glance, recordFailed, kinds);
  return glance;
}

const feedNumbers = { pages: 0, recordsQueued: 0, duplicates: 0, invalid: 0 };
const n0 = (v: unknown) => Number(v ?? 0);

/** Leaves out of the failed counts the failures a newer version of their record superseded (status's failed now). */
async function countFailedNow(redis: Redis, glance: AccountGlance, failing: readonly Kind[], kinds: readonly Kind[]): Promise<void> {
  const queues = openStreamQueues(redis, glance.prefix, kinds);
  try {
    for (const k of failing) {
      const f = await streamFailures(queues, k.stream);
      const st = glance.streams.find((s) => s.stream === k.stream)!;
      st.failed -= f.total - failedNowCount(f);
    }
  } finally {
    await queues.close();
  }
}

/**
 * Every account's glance, in the accounts' order: `inFlight` accounts' pipelines at a time over the one connection
 * (standalone Redis: one round trip's wait for many accounts; a cluster routes each account's pipeline whole).
 */
export async function readAccountsGlance(
  redis: Redis,
  accounts: readonly AccountConfig[],
  kinds: readonly Kind[],
  o: { now?: number; inFlight?: number } = {},
): Promise<AccountGlance[]> {
  const now = o.now ?? Date.now();
  const out: AccountGlance[] = new Array(accounts.length);
  let next = 0;
  const lane = async () => {
    while (next < accounts.length) {
      const i = next++;
      out[i] = await glanceOf(redis, accounts[i]!, kinds, now);
    }
  };
  await Promise.all(Array.from({ length: Math.min(o.inFlight ?? defaults.statusReadsInFlight, accounts.length) }, lane));
  return out;
}
