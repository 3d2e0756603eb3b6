import type { RedisConnection as Redis } from '../redis/connection.js';
import { redisScript, runScript } from '../redis/scripts.js';

/**
 * The deployment's due set: the next scheduled pull of every account and stream, one member each
 * (`<account>/<stream>`, or `<account>/<stream>!make-up` for a look at a missed run), scored by when it is due (epoch
 * ms), in one sorted set under the deployment's prefix (`{prefix}:due`: QUEUE_PREFIX, in its hash tag on a cluster),
 * with a hash beside it (`{prefix}:due:rule`) of each member's rule (its interval or cron: a changed one re-scores it).
 * Whichever process is free claims a due member (src/feed/due-loop.ts): the claim moves it to the end of a lease (a
 * score that ends in half a millisecond), renewed while the pull runs and replaced by its next time when it ends, so a
 * process that dies mid-pull leaves a member that falls due again once its lease ends, and is taken again.
 */

/** The due set's key for the deployment's prefix (the environment's account's: QUEUE_PREFIX, tagged on a cluster). */
export function dueKey(prefix: string): string {
  return `${prefix}:due`;
}

const rulesKey = (key: string) => `${key}:rule`;

/** A member's schedule as registered: when it is first due, and its rule (a changed rule re-scores it). */
export interface DueEntry {
  member: string;
  at: number;
  rule: string;
}

// KEYS: due, rules. ARGV: triples of member, at, rule. An unchanged rule keeps the member's time (NX); a new or changed
// one sets it.
const REGISTER = redisScript(
  'dueRegister',
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

// KEYS: due. ARGV: member, now, leaseMs. Answers nil (not due, or gone), else {score, retaken}: a lease's score ends in
// half a millisecond (a due time is whole), so a lease that ended unfinished (its process died) is told apart.
const CLAIM = redisScript(
  'dueClaim',
  `local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) > tonumber(ARGV[2]) then return nil end
redis.call('ZADD', KEYS[1], 'XX', tonumber(ARGV[2]) + tonumber(ARGV[3]) + 0.5, ARGV[1])
if tonumber(score) % 1 == 0.5 then return {score, 1} end
return {score, 0}`,
);

/** A claim's answer: the slot the run serves (a lease's end when retaken), and whether that lease ended unfinished. */
export interface DueClaim {
  slot: number;
  retaken: boolean;
}

/** Whether a member's score is a lease's (a run of it goes on), not a due time. */
export const isLease = (score: number) => score % 1 !== 0;

/** The due set's commands, on the process's connection. */
export function dueSet(redis: Redis, key: string) {
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
    /** Sets a member's time unless it has a sooner one (an account's wake: the soonest asked for wins). */
    async soonest(member: string, at: number): Promise<void> {
      await redis.zadd(key, 'LT', Math.round(at), member);
    },
    /** Removes members and their rules (an account gone from ACCOUNTS_FILE). */
    async remove(members: readonly string[]): Promise<void> {
      if (!members.length) return;
      await redis.zrem(key, ...members);
      await redis.hdel(rulesKey(key), ...members);
    },
    /** The earliest members with their times (one command: what is due, and when the next one is). */
    async earliest(count: number): Promise<Array<{ member: string; at: number }>> {
      const flat = await redis.zrangebyscore(key, '-inf', '+inf', 'WITHSCORES', 'LIMIT', 0, count);
      const out: Array<{ member: string; at: number }> = [];
      for (let i = 0; i < flat.length; i += 2) out.push({ member: flat[i]!, at: Number(flat[i + 1]) });
      return out;
    },
    /** Claims a due member for a lease of `leaseMs`; undefined when it is not due (or another process took it). */
    async claim(member: string, now: number, leaseMs: number): Promise<DueClaim | undefined> {
      const r = (await runScript(redis, CLAIM, [1, key, member, Math.round(now), Math.round(leaseMs)])) as [string, number] | null;
      return r ? { slot: Math.floor(Number(r[0])), retaken: Number(r[1]) === 1 } : undefined;
    },
    /**
     * Ends a claim: the member's next time (undefined: removed). One command: a process that stalled past its lease
     * (another took the run over) sets a next time too, and the run that took it over sets it again when it ends.
     */
    async finish(member: string, next: number | undefined): Promise<void> {
      if (next === undefined) await redis.zrem(key, member);
      else await redis.zadd(key, 'XX', Math.round(next), member);
    },
    /** Extends a running claim's lease. */
    async renew(member: string, until: number): Promise<void> {
      await redis.zadd(key, 'XX', Math.round(until) + 0.5, member);
    },
  };
}

export type DueSet = ReturnType<typeof dueSet>;
