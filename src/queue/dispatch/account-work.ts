import { isCluster, redisKeys, type RedisConnection as Redis } from '../../redis/connection.js';
import { defineScript, queueScript, redisScript, runScript } from '../../redis/scripts.js';
import { intakeQueueName } from '../intake-queue.js';
import type { StreamName } from '../../records/stream-name.js';

/**
 * What an account has to do, read from its queues in one script (its keys share its hash tag): whether it needs a turn
 * now, and when it will next. BullMQ 6 keeps a paused queue's jobs in its `wait` list and says `paused` in its meta.
 */
export interface AccountWork {
  /** Jobs a worker could take now: waiting or prioritized in a queue that is not paused, and active ones (a process
   * that died leaves them active until a worker's stalled check takes them back). */
  ready: number;
  /** Jobs waiting in a paused queue (the breaker, a revoked key, an outage): they need a look now and then, not a turn. */
  held: number;
  /** When the earliest delayed job falls due (epoch ms), or null. */
  nextDelayedAt: number | null;
  /** Records that wait for a reference the service lacks (src/queue/wait/): the catalog is looked at for them. */
  waits: number;
  /** Failed record jobs no alert has told yet (past their stream's alert mark; none before the alerts' first look). */
  untold: number;
  /** Named calls of the service held now (src/queue/hold/call-hold.ts): their jobs wait delayed, their alerts do not. */
  heldCalls: number;
  /** With jobs held by an outage (src/queue/hold/outage-state.ts): when its next probe may go (epoch ms), or null. */
  nextProbeAt: number | null;
}

/** What the sweep reads of an account besides its work, for the deployment's summary (deployment-summary.ts). */
export interface AccountState extends AccountWork {
  /** Failed record jobs, and those of them that failed since the read's `failedSince`. */
  failed: number;
  failedRecent: number;
  /** Its queues paused (a stream held: the breaker, a revoked key, an outage, an operator). */
  paused: number;
  /** Its polled streams behind (a poll failed or did not catch up, or none caught up within the poll's period). */
  behind: number;
}

/** A polled stream of an account, as the sweep judges it behind: its feed state's key, and how long after its last
 * catch-up it is late (its poll's period and a grace). */
export interface PolledFeed {
  stateKey: string;
  lateAfterMs: number;
}

// KEYS: for each queue its wait, prioritized, active, meta, delayed (five each), then for each stream its waiting hash,
// its failed jobs and its alert mark (three each), then its outage, then its call holds, then the feed state of each
// polled stream. ARGV: the number of queues, of streams. An account that never had work has none of the keys before
// the feeds': one EXISTS answers for it; one with no failed job and no call hold, one EXISTS of those. ARGV[3]: since
// when a failed job is recent (epoch ms); ARGV[4]: the polled streams; then for each, by when it had to catch up
// (an ISO time, as the feed state holds it). A polled stream is behind when its last poll failed or did not catch up,
// or when it last caught up before then (one HMGET each).
const WORK = redisScript(
  'accountWork',
  `#!lua flags=no-writes
local feeds = tonumber(ARGV[4])
local own = #KEYS - feeds
local behind = 0
for f = 1, feeds do
  local st = redis.call('HMGET', KEYS[own + f], 'caughtUpAt', 'lastPollAt', 'lastError')
  local caught, polled = st[1] or '', st[2] or ''
  if (st[3] and st[3] ~= '') or polled > caught or (caught ~= '' and caught < ARGV[4 + f]) then behind = behind + 1 end
end
if redis.call('EXISTS', unpack(KEYS, 1, own)) == 0 then return {0, 0, -1, 0, 0, 0, 0, 0, 0, -1, behind} end
local queues = tonumber(ARGV[1])
local ready, held, waits, untold, calls, failedJobs, recent, paused = 0, 0, 0, 0, 0, 0, 0, 0
local next = nil
for q = 0, queues - 1 do
  local k = q * 5
  local waiting = redis.call('LLEN', KEYS[k + 1]) + redis.call('ZCARD', KEYS[k + 2])
  if redis.call('HEXISTS', KEYS[k + 4], 'paused') == 1 then
    held = held + waiting
    paused = paused + 1
  else
    ready = ready + waiting
  end
  ready = ready + redis.call('LLEN', KEYS[k + 3])
  local first = redis.call('ZRANGE', KEYS[k + 5], 0, 0, 'WITHSCORES')
  if first[2] then
    local at = math.floor(tonumber(first[2]) / 4096)
    if next == nil or at < next then next = at end
  end
end
local streams, failed = tonumber(ARGV[2]), {}
for s = 0, streams - 1 do
  waits = waits + redis.call('HLEN', KEYS[queues * 5 + s * 3 + 1])
  failed[s + 1] = KEYS[queues * 5 + s * 3 + 2]
end
failed[streams + 1] = KEYS[own]
local probe = -1
if held > 0 then
  local outage = redis.call('HMGET', KEYS[own - 1], 'state', 'nextProbe')
  if outage[1] == 'open' and outage[2] then probe = tonumber(outage[2]) end
end
if redis.call('EXISTS', unpack(failed)) > 0 then
  for s = 0, streams - 1 do
    local seen = redis.call('GET', KEYS[queues * 5 + s * 3 + 3])
    if seen then untold = untold + redis.call('ZCOUNT', failed[s + 1], '(' .. seen, '+inf') end
    failedJobs = failedJobs + redis.call('ZCARD', failed[s + 1])
    recent = recent + redis.call('ZCOUNT', failed[s + 1], ARGV[3], '+inf')
  end
  local holds = redis.call('HGETALL', KEYS[own])
  for i = 1, #holds, 2 do
    if holds[i + 1] == 'held' and string.sub(holds[i], -6) == ':state' then calls = calls + 1 end
  end
end
return {ready, held, next or -1, waits, untold, calls, failedJobs, recent, paused, probe, behind}`,
);

/** The script's arguments for an account's prefix and streams (failed jobs recent since `failedSince`). */
function workArgs(
  prefix: string,
  streams: readonly StreamName[],
  failedSince = Date.now(),
  polled: readonly PolledFeed[] = [],
): Array<string | number> {
  const queues = streams.flatMap((s) => [s, intakeQueueName(s)]);
  const keys = queues.flatMap((q) => ['wait', 'prioritized', 'active', 'meta', 'delayed'].map((t) => `${prefix}:${q}:${t}`));
  const k = redisKeys(prefix);
  const perStream = streams.flatMap((s) => [k.waiting(s), `${prefix}:${s}:failed`, k.alertFailedSeen(s)]);
  const own = [k.outage(), k.callHolds()];
  const feeds = polled.map((f) => f.stateKey);
  const by = polled.map((f) => new Date(Date.now() - f.lateAfterMs).toISOString());
  const counts = [queues.length, streams.length, failedSince, polled.length];
  return [keys.length + perStream.length + own.length + feeds.length, ...keys, ...perStream, ...own, ...feeds, ...counts, ...by];
}

const parse = (r: unknown): AccountState => {
  const [ready, held, next, waits, untold, heldCalls, failed, failedRecent, paused, probe, behind] = (r as number[]).map(Number);
  return {
    ...{ ready: ready!, held: held!, nextDelayedAt: next! < 0 ? null : next!, waits: waits!, untold: untold!, heldCalls: heldCalls! },
    nextProbeAt: probe! < 0 ? null : probe!,
    ...{ failed: failed!, failedRecent: failedRecent!, paused: paused!, behind: behind! },
  };
};

/**
 * When a closed account is looked at again: at its first delayed job; within `lookAgainMs` when it has jobs held or
 * records waiting; and, held by an outage, at the outage's next probe (which only a turn sends: waiting the whole
 * `lookAgainMs` would keep its work back up to a minute after the service answers again), a second from now at least.
 */
export function nextLookAt(w: AccountWork, now: number, lookAgainMs: number): number {
  const held = w.waits > 0 || w.held > 0 ? now + lookAgainMs : Infinity;
  const probe = w.nextProbeAt === null ? Infinity : Math.max(now + 1000, w.nextProbeAt);
  return Math.min(w.nextDelayedAt ?? Infinity, held, probe);
}

/** Reads one account's work. */
export async function readAccountWork(redis: Redis, prefix: string, streams: readonly StreamName[]): Promise<AccountWork> {
  return parse(await runScript(redis, WORK, workArgs(prefix, streams)));
}

/**
 * Reads many accounts' work and state (failed jobs recent since `failedSince`; their polled streams behind), a pipeline
 * per 100 accounts (per account on a Redis Cluster, which routes a pipeline to one node); an account whose read failed
 * is left out (read again at the next sweep).
 */
export async function readAccountsWork(
  redis: Redis,
  accounts: ReadonlyArray<{ name: string; prefix: string; polled?: readonly PolledFeed[] }>,
  streams: readonly StreamName[],
  failedSince = Date.now(),
): Promise<Map<string, AccountState>> {
  defineScript(redis, WORK);
  const size = isCluster(redis) ? 1 : 100;
  const out = new Map<string, AccountState>();
  for (let i = 0; i < accounts.length; i += size) {
    const group = accounts.slice(i, i + size);
    const pipe = redis.pipeline();
    for (const a of group) queueScript(pipe, WORK, workArgs(a.prefix, streams, failedSince, a.polled));
    const replies = (await pipe.exec().catch(() => null)) ?? [];
    replies.forEach(([err, r], j) => {
      if (!err) out.set(group[j]!.name, parse(r));
    });
  }
  return out;
}
