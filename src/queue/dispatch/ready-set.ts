import { randomUUID } from 'node:crypto';
import type { RedisConnection as Redis } from '../../redis/connection.js';
import { redisScript, runScript } from '../../redis/scripts.js';
import { recoverer, renewLeases } from './ready-leases.js';
import { shardKeys, shardOf, type ReadyContext } from './ready-keys.js';

export { shardKeys, shardOf, type ShardKeys } from './ready-keys.js';

/**
 * The deployment's ready set: the accounts that have work, and nothing of those that have none. It is split into
 * shards, each under a hash tag of its own (`{isync~ready~3}`: `~` is in no account name), so a Redis Cluster spreads
 * them; an account is always in the shard its name hashes to. Per shard:
 *
 * - `:ready` (sorted set): the accounts with work, scored by their pass (stride scheduling: the lowest goes next);
 * - `:lease` (sorted set): the accounts a process has open now, scored by when its lease ends (renewed while open);
 * - `:pass` (hash): each account's pass after its last turn, so a return to the set does not jump the queue;
 * - `:vt` (string): the shard's virtual time, the pass of the last account claimed: an account that comes back after
 *   an idle spell starts there, not at the pass it left with (it gets no credit for the time it had nothing to do).
 *
 * A turn is charged by the time it held its place divided by the account's weight (ACCOUNT_WEIGHT): an account weighted
 * 2 is charged half, so it gets twice the turns of one weighted 1 when both always have work. The dispatcher claims
 * from the shard whose lowest pass is lowest (`heads`), so that the shards' times move together and the passes of
 * accounts in different shards compare. A turn handed back that would be claimed straight back (its charged pass still
 * no higher than every pass waiting) is kept instead (`keep`): charged and leased again, its workers left open.
 */

// KEYS: ready, pass, vt. ARGV: account. Adds the account at max(its pass, the shard's time) unless it is there.
const MARK = redisScript(
  'readyMark',
  `if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
local vt = tonumber(redis.call('GET', KEYS[3]) or '0')
local pass = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
redis.call('ZADD', KEYS[1], math.max(vt, pass), ARGV[1])
return 1`,
);

// KEYS: ready, lease, vt, owner. ARGV: now, leaseMs, skip (accounts this process will not take, joined by newlines),
// owner. Takes the lowest pass whose lease is not held (or has ended: its process died), leases it to the owner and
// answers it, or nil.
const CLAIM = redisScript(
  'readyClaim',
  `local now = tonumber(ARGV[1])
local skip = {}
for name in string.gmatch(ARGV[3], '[^\\n]+') do skip[name] = true end
local scan = math.min(redis.call('ZCARD', KEYS[2]) + #ARGV[3] + 16, 2000)
local ready = redis.call('ZRANGE', KEYS[1], 0, scan - 1, 'WITHSCORES')
for i = 1, #ready, 2 do
  local m = ready[i]
  local until_ = tonumber(redis.call('ZSCORE', KEYS[2], m) or '0')
  if not skip[m] and until_ <= now then
    redis.call('ZREM', KEYS[1], m)
    redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), m)
    redis.call('HSET', KEYS[4], m, ARGV[4])
    local vt = tonumber(redis.call('GET', KEYS[3]) or '0')
    if tonumber(ready[i + 1]) > vt then redis.call('SET', KEYS[3], ready[i + 1]) end
    return m
  end
end
return nil`,
);

// A lease another process holds now (this one's ended while it stalled, and the other claimed it): left alone.
const NOT_MINE = (account: string, owner: string) =>
  `local holder = redis.call('HGET', KEYS[5], ${account})
if holder and holder ~= ${owner} then return 0 end
`;

// KEYS: ready, lease, pass, vt, owner. ARGV: account, charge, work (1: it has work left), owner. Unless another process
// holds its lease now (answers 0), ends the account's lease and charges
// its turn; it stays in the ready set with work left, and leaves it otherwise, a mark made while it was open with it (the
// account's own adds mark it during its turn: kept, it would open again for nothing; the dispatcher reads its queues
// after this and marks it again if work came in between).
const RELEASE = redisScript(
  'readyRelease',
  `${NOT_MINE('ARGV[1]', 'ARGV[4]')}redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[5], ARGV[1])
local vt = tonumber(redis.call('GET', KEYS[4]) or '0')
local pass = math.max(vt, tonumber(redis.call('HGET', KEYS[3], ARGV[1]) or '0')) + tonumber(ARGV[2])
redis.call('HSET', KEYS[3], ARGV[1], pass)
if ARGV[3] == '1' then redis.call('ZADD', KEYS[1], pass, ARGV[1]) else redis.call('ZREM', KEYS[1], ARGV[1]) end
return 1`,
);

// The lowest pass of the accounts of a shard that wait for a place (no lease held), other than ARGV's account and
// those skipped: what KEEP and HEAD share. Sets head (math.huge: none waits).
const LOWEST_WAITING = `local skip = {}
for name in string.gmatch(ARGV[2], '[^\\n]+') do skip[name] = true end
local head = math.huge
local scan = math.min(redis.call('ZCARD', KEYS[2]) + #ARGV[2] + 16, 2000)
local ready = redis.call('ZRANGE', KEYS[1], 0, scan - 1, 'WITHSCORES')
for i = 1, #ready, 2 do
  local m = ready[i]
  if m ~= ARGV[3] and not skip[m] and tonumber(redis.call('ZSCORE', KEYS[2], m) or '0') <= tonumber(ARGV[1]) then
    head = tonumber(ready[i + 1])
    break
  end
end
`;

// KEYS: ready, lease. ARGV: now, skip (joined by newlines), account (left out). The lowest pass waiting, or nil.
const HEAD = redisScript(
  'readyHead',
  `${LOWEST_WAITING}if head == math.huge then return nil end
return tostring(head)`,
);

// KEYS: ready, lease, pass, vt, owner. ARGV: now, skip, account, charge, leaseMs, others (the lowest pass waiting in the
// other shards, '' for none), owner. Ends a turn that would be claimed straight back: when the account's pass, charged, is still
// no higher than every pass waiting (here and in the other shards, those skipped left out), it is charged and leased again at
// once, as a claim would (its mark taken, the shard's time moved on), and answers 1: its workers stay open. Otherwise
// nothing changes and it answers 0 (the turn closes and is released).
const KEEP = redisScript(
  'readyKeep',
  `${NOT_MINE('ARGV[3]', 'ARGV[7]')}${LOWEST_WAITING}if ARGV[6] ~= '' then head = math.min(head, tonumber(ARGV[6])) end
local vt = tonumber(redis.call('GET', KEYS[4]) or '0')
local pass = math.max(vt, tonumber(redis.call('HGET', KEYS[3], ARGV[3]) or '0')) + tonumber(ARGV[4])
if pass > head then return 0 end
redis.call('HSET', KEYS[3], ARGV[3], pass)
redis.call('ZREM', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], tonumber(ARGV[1]) + tonumber(ARGV[5]), ARGV[3])
if pass > vt then redis.call('SET', KEYS[4], pass) end
return 1`,
);

// KEYS: ready, lease. ARGV: now. How many accounts of the shard wait for a turn that no process holds (at most 1000 looked at).
const WAITING = redisScript(
  'readyWaiting',
  `local ready = redis.call('ZRANGE', KEYS[1], 0, 999)
local n = 0
for _, m in ipairs(ready) do
  if tonumber(redis.call('ZSCORE', KEYS[2], m) or '0') <= tonumber(ARGV[1]) then n = n + 1 end
end
return n`,
);

/** The lowest pass waiting in the shards other than the account's (Infinity: none), each shard read by its own script. */
async function othersHead(c: ReadyContext, account: string, now: number, skipped: string): Promise<number> {
  const own = shardOf(account, c.shards);
  let others = Infinity;
  for (let s = 0; s < c.shards; s++) {
    if (s === own) continue;
    const k = shardKeys(c.base, s);
    const head = (await runScript(c.redis, HEAD, [2, k.ready, k.lease, Math.round(now), skipped, account])) as string | null;
    if (head !== null) others = Math.min(others, Number(head));
  }
  return others;
}

/** The ready set's `keep` (KEEP): the other shards read first, the account's own atomically. */
async function keepTurn(
  c: ReadyContext,
  t: { account: string; charge: number; now: number; leaseMs: number; skip: readonly string[] },
): Promise<boolean> {
  const skipped = t.skip.join('\n');
  const others = await othersHead(c, t.account, t.now, skipped);
  const k = shardKeys(c.base, shardOf(t.account, c.shards));
  const args = [Math.round(t.now), skipped, t.account, t.charge, Math.round(t.leaseMs), Number.isFinite(others) ? others : '', c.owner];
  return Number(await runScript(c.redis, KEEP, [5, k.ready, k.lease, k.pass, k.vt, k.owner, ...args])) === 1;
}

/**
 * The ready set's commands for a deployment, on the process's connection; `owner` names this process's leases (one
 * ready set a process).
 */
export function readySet(redis: Redis, base: string, shards: number, owner: string = randomUUID()) {
  const keysOf = (account: string) => shardKeys(base, shardOf(account, shards));
  return {
    shards,
    owner,
    keysOf,
    /** Says the account has work: it takes a turn when its pass comes (a process may have it open already). */
    async mark(account: string): Promise<void> {
      const k = keysOf(account);
      await runScript(redis, MARK, [3, k.ready, k.pass, k.vt, account]);
    },
    /** Each shard's lowest pass (Infinity: empty), for the claim to try the lowest first (sent at once, a shard each). */
    async heads(): Promise<number[]> {
      const keys = Array.from({ length: shards }, (_, s) => shardKeys(base, s).ready);
      const firsts = await Promise.all(keys.map((k) => redis.zrange(k, '0', '0', 'WITHSCORES')));
      return firsts.map((r) => (r[1] === undefined ? Infinity : Number(r[1])));
    },
    /** Claims the next account of a shard for a lease of `leaseMs`, skipping `skip`; undefined when none waits. */
    async claim(shard: number, now: number, leaseMs: number, skip: readonly string[] = []): Promise<string | undefined> {
      const k = shardKeys(base, shard);
      const args = [Math.round(now), Math.round(leaseMs), skip.join('\n'), owner];
      const r = (await runScript(redis, CLAIM, [4, k.ready, k.lease, k.vt, k.owner, ...args])) as string | null;
      return r ?? undefined;
    },
    /** Ends a turn: charged `charge` (its time over its weight); back in the set when it has work left, out of it otherwise. */
    async release(account: string, charge: number, work: boolean): Promise<void> {
      const k = keysOf(account);
      await runScript(redis, RELEASE, [5, k.ready, k.lease, k.pass, k.vt, k.owner, account, charge, work ? '1' : '0', owner]);
    },
    /**
     * Ends a turn that would be claimed straight back (KEEP): charged `charge`, and leased again when its pass is still
     * no higher than every account waiting for a place in any shard (`skip` left out: this process would not claim them); answers
     * whether it was kept. The other shards are read first, one at a time (their own hash tags), the account's atomically.
     */
    keep: (account: string, charge: number, now: number, leaseMs: number, skip: readonly string[] = []) =>
      keepTurn({ redis, base, shards, owner }, { account, charge, now, leaseMs, skip }),
    /**
     * Extends the leases of the open accounts this process holds (one script a shard); answers those another process
     * holds now (this one stalled past their lease, and another claimed them).
     */
    renew: (accounts: readonly string[], until: number) => renewLeases({ redis, base, shards, owner }, accounts, until),
    /**
     * Gives the ready set back the accounts whose lease ended with no release (their process died mid-turn), at their
     * pass: taken up by the next claim, not by the sweep a minute later. At most once every `everyMs` (a script a shard).
     */
    recover: recoverer({ redis, base, shards, owner }),
    /** How many accounts of a shard wait for a turn and are held by no process (an idle deployment: 0). */
    async waiting(shard: number, now: number): Promise<number> {
      const k = shardKeys(base, shard);
      return Number(await runScript(redis, WAITING, [2, k.ready, k.lease, Math.round(now)]));
    },
    /** Forgets an account (gone from ACCOUNTS_FILE, or purged): its place, its lease and its pass. */
    async forget(account: string): Promise<void> {
      const k = keysOf(account);
      await Promise.all([
        redis.zrem(k.ready, account),
        redis.zrem(k.lease, account),
        redis.hdel(k.pass, account),
        redis.hdel(k.owner, account),
      ]);
    },
  };
}

export type ReadySet = ReturnType<typeof readySet>;
