import type { RedisConnection as Redis } from '../redis/connection.js';
import { redisScript, runScript } from '../redis/scripts.js';

/**
 * The deployment's due set: the next scheduled pull of every account and stream, one member each
 * (`<account>/<stream>`, or `<account>/<stream>!make-up` for a look at a missed run), scored by when it is due (epoch
 * ms), in one sorted set under the deployment's prefix (`{prefix}:due`: QUEUE_PREFIX, in its hash tag on a cluster),
 * with a hash beside it (`{prefix}:due:rule`) of each member's rule (its interval or cron: a changed one re-scores it).
 * Whichever process looks first claims the due members (src/feed/due-loop.ts; one script a look). An interval's member
 * is claimed to its next slot (its run most often answers that same time: nothing more is written when it ends); any
 * other (a cron, a member without a rule, a lease that ended unfinished) to the end of a lease (a score that ends in
 * half a millisecond), renewed while the pull runs and replaced by its next time when it ends. The loop renews a claim
 * to the next slot before that slot comes due if its run goes on (it is then a lease). So a process that dies mid-pull
 * leaves a member that falls due again at its next slot, or once its lease ends, and is taken again.
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

// KEYS: due, rules. ARGV: now, leaseMs, max, then members to leave (running here, or not run here). Claims the
// earliest due members, at most `max`, their rules read at once: an interval's (`every <ms>`, due at a whole slot) to
// its first slot after now (its slots are its due time's plus whole intervals); any other for a lease (a score that
// ends in half a millisecond: a due time is whole, so a lease that ended unfinished, its process died, is told apart).
// Answers {member, score, next slot or 0 for a lease, ...} and the first time not yet due (nil when none was read).
// One script a look whatever the members due: each taken by one process only.
const CLAIM_DUE = redisScript(
  'dueClaimDue',
  `local now, lease, max = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local leave = {}
for i = 4, #ARGV do leave[ARGV[i]] = true end
local flat = redis.call('ZRANGE', KEYS[1], 0, max + #ARGV - 4, 'WITHSCORES')
local members, scores, nextAt = {}, {}, false
for i = 1, #flat, 2 do
  local m, score = flat[i], flat[i + 1]
  if tonumber(score) > now then nextAt = score break end
  if #members < max and not leave[m] then
    members[#members + 1] = m
    scores[#scores + 1] = score
  end
end
local out = {}
if #members > 0 then
  local rules = redis.call('HMGET', KEYS[2], unpack(members))
  for i, m in ipairs(members) do
    local s = tonumber(scores[i])
    local every = rules[i] and tonumber(string.match(rules[i], '^every (%d+)$'))
    local slot = 0
    if every and every > 0 and s % 1 == 0 then
      slot = s + every * math.ceil((now - s + 1) / every)
      redis.call('ZADD', KEYS[1], 'XX', slot, m)
    else
      redis.call('ZADD', KEYS[1], 'XX', now + lease + 0.5, m)
    end
    out[#out + 1] = m
    out[#out + 1] = scores[i]
    out[#out + 1] = slot
  end
end
return {out, nextAt}`,
);

/** A claim's answer: the slot the run serves (a lease's end when retaken), and whether that lease ended unfinished. */
export interface DueClaim {
  slot: number;
  retaken: boolean;
}

/**
 * A member claimed by a look: its claim, its score before (to give it back untouched), and the slot it was claimed to
 * (an interval's next; undefined when it was claimed for a lease).
 */
export interface ClaimedMember extends DueClaim {
  member: string;
  score: number;
  next: number | undefined;
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
    /**
     * Claims the due members (at most `max`, none of `leave`) in one script, an interval's to its next slot and any
     * other for a lease of `leaseMs`; answers them and when the next member not yet due is (undefined when none was
     * read: look again soon).
     */
    async claimDue(
      now: number,
      leaseMs: number,
      max: number,
      leave: readonly string[],
    ): Promise<{ claimed: ClaimedMember[]; nextAt: number | undefined }> {
      const args = [2, key, rulesKey(key), Math.round(now), Math.round(leaseMs), max, ...leave];
      const [flat, next] = (await runScript(redis, CLAIM_DUE, args)) as [Array<string | number>, string | null];
      const claimed: ClaimedMember[] = [];
      for (let i = 0; i < flat.length; i += 3) {
        const score = Number(flat[i + 1]);
        const to = Number(flat[i + 2]) || undefined;
        claimed.push({ member: String(flat[i]), score, slot: Math.floor(score), retaken: isLease(score), next: to });
      }
      return { claimed, nextAt: next === null ? undefined : Number(next) };
    },
    /** Gives a claimed member back its score (this process could not run it: another takes it). */
    async giveBack(member: string, score: number): Promise<void> {
      await redis.zadd(key, 'XX', score, member);
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
