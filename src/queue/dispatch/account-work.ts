import { isCluster, type RedisConnection as Redis } from '../../redis/connection.js';
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
}

// KEYS: for each queue its wait, prioritized, active, meta, delayed (five each), then each stream's waiting hash.
// ARGV: the number of queues. An account that never had work has none of these keys: one EXISTS answers for it.
const WORK = redisScript(
  'accountWork',
  `#!lua flags=no-writes
if redis.call('EXISTS', unpack(KEYS)) == 0 then return {0, 0, -1, 0} end
local queues = tonumber(ARGV[1])
local ready, held, waits = 0, 0, 0
local next = nil
for q = 0, queues - 1 do
  local k = q * 5
  local waiting = redis.call('LLEN', KEYS[k + 1]) + redis.call('ZCARD', KEYS[k + 2])
  if redis.call('HEXISTS', KEYS[k + 4], 'paused') == 1 then held = held + waiting else ready = ready + waiting end
  ready = ready + redis.call('LLEN', KEYS[k + 3])
  local first = redis.call('ZRANGE', KEYS[k + 5], 0, 0, 'WITHSCORES')
  if first[2] then
    local at = math.floor(tonumber(first[2]) / 4096)
    if next == nil or at < next then next = at end
  end
end
for i = queues * 5 + 1, #KEYS do waits = waits + redis.call('HLEN', KEYS[i]) end
return {ready, held, next or -1, waits}`,
);

/** The script's arguments for an account's prefix and streams. */
function workArgs(prefix: string, streams: readonly StreamName[]): Array<string | number> {
  const queues = streams.flatMap((s) => [s, intakeQueueName(s)]);
  const keys = queues.flatMap((q) => ['wait', 'prioritized', 'active', 'meta', 'delayed'].map((t) => `${prefix}:${q}:${t}`));
  const waiting = streams.map((s) => `${prefix}:waiting:${s}`);
  return [keys.length + waiting.length, ...keys, ...waiting, queues.length];
}

const parse = (r: unknown): AccountWork => {
  const [ready, held, next, waits] = (r as number[]).map(Number);
  return { ready: ready!, held: held!, nextDelayedAt: next! < 0 ? null : next!, waits: waits! };
};

/** Reads one account's work. */
export async function readAccountWork(redis: Redis, prefix: string, streams: readonly StreamName[]): Promise<AccountWork> {
  return parse(await runScript(redis, WORK, workArgs(prefix, streams)));
}

/**
 * Reads many accounts' work, a pipeline per 100 accounts (per account on a Redis Cluster, which routes a pipeline to
 * one node); an account whose read failed is left out (read again at the next sweep).
 */
export async function readAccountsWork(
  redis: Redis,
  accounts: ReadonlyArray<{ name: string; prefix: string }>,
  streams: readonly StreamName[],
): Promise<Map<string, AccountWork>> {
  defineScript(redis, WORK);
  const size = isCluster(redis) ? 1 : 100;
  const out = new Map<string, AccountWork>();
  for (let i = 0; i < accounts.length; i += size) {
    const group = accounts.slice(i, i + size);
    const pipe = redis.pipeline();
    for (const a of group) queueScript(pipe, WORK, workArgs(a.prefix, streams));
    const replies = (await pipe.exec().catch(() => null)) ?? [];
    replies.forEach(([err, r], j) => {
      if (!err) out.set(group[j]!.name, parse(r));
    });
  }
  return out;
}
