import { redisScript } from '../../redis/scripts.js';

/**
 * The job lease's scripts (job-lease.ts). KEYS[1] is the lease (a hash with a life: token, version, job), KEYS[2] the
 * record's fence (a hash kept for days: the version counter and the intent of the last fenced write).
 */

/**
 * Takes the lease for job ARGV[2] with token ARGV[1] for ARGV[3] ms: refused ({0, ms left}) while another job holds it;
 * a job taken again (BullMQ's stalled check) takes it over from its own zombie. Answers {version, intent's call, token,
 * at, job}: the intent a previous execution left ('' when none).
 */
export const LEASE_TAKE = redisScript(
  'leaseTake',
  `local job = redis.call('HGET', KEYS[1], 'job')
if job and job ~= ARGV[2] then return {0, redis.call('PTTL', KEYS[1])} end
local v = redis.call('HINCRBY', KEYS[2], 'version', 1)
redis.call('EXPIRE', KEYS[2], ARGV[4])
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'token', ARGV[1], 'job', ARGV[2], 'version', v)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
local i = redis.call('HMGET', KEYS[2], 'call', 'token', 'at', 'job')
return {v, i[1] or '', i[2] or '', i[3] or '', i[4] or ''}`,
);

/** Renews the lease for ARGV[2] ms while its token is ARGV[1]: 1, or 0 when it is no longer this execution's. */
export const LEASE_RENEW = redisScript(
  'leaseRenew',
  `if redis.call('HGET', KEYS[1], 'token') == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`,
);

/**
 * The fence before a write: while the lease's token is ARGV[1], the write's intent (call ARGV[2], at ARGV[3], job
 * ARGV[4], version ARGV[5]) is recorded over the last one, the lease renewed for its whole life (ARGV[6] ms: a write
 * sent within a third of it is inside the lease whatever the renewals' timer did), and 1 answered; 0 (nothing written)
 * once it is another's.
 */
export const LEASE_FENCE = redisScript(
  'leaseFence',
  `if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[2], 'call', ARGV[2], 'token', ARGV[1], 'at', ARGV[3], 'job', ARGV[4], 'intentVersion', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return 1`,
);

/**
 * Ends the lease while its token is ARGV[1]; with ARGV[2] = '1' (the execution ran to its end) the intent is cleared
 * too, this execution's or the one it found and settled: their outcomes are in the kind's progress. Answers 1, or 0
 * when the lease was no longer this execution's (nothing changed).
 */
export const LEASE_RELEASE = redisScript(
  'leaseRelease',
  `if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
if ARGV[2] == '1' then redis.call('HDEL', KEYS[2], 'call', 'token', 'at', 'job', 'intentVersion') end
return 1`,
);
