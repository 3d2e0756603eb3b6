import type { RedisConnection as Redis } from '../redis/connection.js';
import { redisScript, runScript } from '../redis/scripts.js';

/**
 * The deployment's due set: the next scheduled pull of every account and stream, one member each
 * (`<account>/<stream>`, or `<account>/<stream>!make-up` for a look at a missed run), scored by when it is due (epoch
 * ms), in one sorted set under the deployment's prefix (`{prefix}:due`: QUEUE_PREFIX, in its hash tag on a cluster), with
 * two hashes beside it under the same prefix: each member's rule (its interval or cron, so a changed one re-scores it) and each claimed member's lease (who
 * runs it, and the slot it serves). Whichever process is free claims a due member (src/feed/due-loop.ts): the claim
 * moves it to the end of a lease, renewed while the pull runs and replaced by its next time when it ends, so a process
 * that dies mid-pull leaves a member that falls due again once its lease ends, and is taken again.
 */

/** The due set's key for the deployment's prefix (the environment's account's: QUEUE_PREFIX, tagged on a cluster). */
export function dueKey(prefix: string): string {
  return `${prefix}:due`;
}

const rulesKey = (key: string) => `${key}:rule`;
const leasesKey = (key: string) => `${key}:lease`;

/** A member's schedule as registered: when it is first due, and its rule (a changed rule re-scores it). */
export interface DueEntry {
  member: string;
  at: number;
  rule: string;
}

// KEYS: due, rules. ARGV: triples of member, at, rule. An unchanged rule keeps the member's time (NX); a new or changed
// one sets it.
const REGISTER = redisScript(
  'due_register',
  `for i = 1, #ARGV, 3 do
  local m, at, rule = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  if redis.call('HGET', KEYS[2], m) == rule then
    redis.call('ZADD', KEYS[1], 'NX', at, m)
  else
    redis.call('ZADD', KEYS[1], at, m)
    redis.call('HSET', KEYS[2], m, rule)
  end
end
return 1`,
);

// KEYS: due, leases. ARGV: member, now, leaseMs, token. Answers nil (not due, or gone), else {slot, retaken}: the
// slot is the member's score, or the slot of a lease that ended unfinished (its process died: retaken = 1).
const CLAIM = redisScript(
  'due_claim',
  `local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) > tonumber(ARGV[2]) then return nil end
local slot, retaken = score, 0
if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[4] .. ':' .. score) == 0 then
  slot = string.match(redis.call('HGET', KEYS[2], ARGV[1]), ':(.*)$') or score
  retaken = 1
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[4] .. ':' .. slot)
end
redis.call('ZADD', KEYS[1], 'XX', tonumber(ARGV[2]) + tonumber(ARGV[3]), ARGV[1])
return {slot, retaken}`,
);

// KEYS: due, leases. ARGV: member, token, at (or '' to remove the member). Only the lease's holder moves it.
const FINISH = redisScript(
  'due_finish',
  `local lease = redis.call('HGET', KEYS[2], ARGV[1])
if not lease or string.sub(lease, 1, #ARGV[2] + 1) ~= ARGV[2] .. ':' then return 0 end
redis.call('HDEL', KEYS[2], ARGV[1])
if ARGV[3] == '' then redis.call('ZREM', KEYS[1], ARGV[1]) else redis.call('ZADD', KEYS[1], 'XX', ARGV[3], ARGV[1]) end
return 1`,
);

// KEYS: due, leases. ARGV: member, token, until. Extends a lease its holder still has.
const RENEW = redisScript(
  'due_renew',
  `local lease = redis.call('HGET', KEYS[2], ARGV[1])
if not lease or string.sub(lease, 1, #ARGV[2] + 1) ~= ARGV[2] .. ':' then return 0 end
redis.call('ZADD', KEYS[1], 'XX', ARGV[3], ARGV[1])
return 1`,
);

/** A claim's answer: the slot the run serves, and whether a lease that ended unfinished was taken over. */
export interface DueClaim {
  slot: number;
  retaken: boolean;
}

/** The due set's commands, on the process's connection. */
export function dueSet(redis: Redis, key: string) {
  const keys = [key, leasesKey(key)];
  return {
    key,
    /** Registers members (an unchanged rule keeps the member's time; a new or changed one sets it). */
    async register(entries: readonly DueEntry[]): Promise<void> {
      if (!entries.length) return;
      const args = entries.flatMap((e) => [e.member, Math.round(e.at), e.rule]);
      await runScript(redis, REGISTER, [2, key, rulesKey(key), ...args]);
    },
    /** Adds a member unless it is there (a make-up look asked for while one is pending keeps the earlier time). */
    async add(member: string, at: number): Promise<void> {
      await redis.zadd(key, 'NX', Math.round(at), member);
    },
    /** Removes members, their rules and leases (an account gone from ACCOUNTS_FILE). */
    async remove(members: readonly string[]): Promise<void> {
      if (!members.length) return;
      await redis.zrem(key, ...members);
      await redis.hdel(rulesKey(key), ...members);
      await redis.hdel(leasesKey(key), ...members);
    },
    /** The earliest members with their times (one command: what is due, and when the next one is). */
    async earliest(count: number): Promise<Array<{ member: string; at: number }>> {
      const flat = await redis.zrangebyscore(key, '-inf', '+inf', 'WITHSCORES', 'LIMIT', 0, count);
      const out: Array<{ member: string; at: number }> = [];
      for (let i = 0; i < flat.length; i += 2) out.push({ member: flat[i]!, at: Number(flat[i + 1]) });
      return out;
    },
    /** A member's time, if it is there. */
    async at(member: string): Promise<number | undefined> {
      const score = await redis.zscore(key, member);
      return score === null ? undefined : Number(score);
    },
    /** Claims a due member for a lease of `leaseMs`; undefined when it is not due (or another process took it). */
    async claim(member: string, now: number, leaseMs: number, token: string): Promise<DueClaim | undefined> {
      const r = (await runScript(redis, CLAIM, [2, ...keys, member, now, Math.round(leaseMs), token])) as [string, number] | null;
      return r ? { slot: Number(r[0]), retaken: Number(r[1]) === 1 } : undefined;
    },
    /** Ends a claim: the member's next time (undefined: removed). False when the lease was no longer this token's. */
    async finish(member: string, token: string, next: number | undefined): Promise<boolean> {
      const r = await runScript(redis, FINISH, [2, ...keys, member, token, next === undefined ? '' : Math.round(next)]);
      return Number(r) === 1;
    },
    /** Extends a running claim's lease. */
    async renew(member: string, token: string, until: number): Promise<boolean> {
      return Number(await runScript(redis, RENEW, [2, ...keys, member, token, Math.round(until)])) === 1;
    },
  };
}

export type DueSet = ReturnType<typeof dueSet>;
