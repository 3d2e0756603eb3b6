import type { RedisConnection as Redis } from './connection.js';
import type { Logger } from '../log/logger.js';
import { messageOf } from '../errors/message-of.js';

/** What the program knows of Redis's eviction policy, for the start log, `status` and `/readyz`. */
export interface EvictionCheck {
  /** Redis's maxmemory-policy, or null when it could not be read. */
  policy: string | null;
  /** Why the policy is a risk, and what to do; null when it is noeviction. */
  warning: string | null;
}

/**
 * maxmemory-policy from INFO memory (answered where CONFIG is disabled, as on most managed Redis), else from CONFIG
 * GET. On a Redis Cluster the node that answers speaks for all (they are configured alike).
 */
export async function readEvictionPolicy(redis: Pick<Redis, 'info' | 'config'>): Promise<string> {
  const info = await redis.info('memory');
  const line = /^maxmemory_policy:(.+)$/m.exec(info);
  if (line) return line[1]!.trim();
  const answer = (await redis.config('GET', 'maxmemory-policy')) as unknown as string[];
  if (answer[1]) return answer[1];
  throw new Error('neither INFO memory nor CONFIG GET names it');
}

/** The warning for a policy (null: unread, with why), or null for noeviction, the one policy that loses nothing. */
export function evictionWarning(policy: string | null, readError?: string): string | null {
  if (policy === 'noeviction') return null;
  const risk =
    'Under memory pressure Redis would delete keys: first the ones with a TTL (the locks, order progress and budget keys), ' +
    'then with allkeys-* queued jobs too; a job could then run twice or a record be lost.';
  const fix = 'Set maxmemory-policy noeviction (redis.conf, or CONFIG SET maxmemory-policy noeviction).';
  if (policy === null) return `could not read Redis's maxmemory-policy (${readError ?? 'no answer'}); make sure it is noeviction. ${risk}`;
  return `Redis's maxmemory-policy is ${policy}, not noeviction. ${risk} ${fix}`;
}

/** Reads the policy and says whether it is a risk. Never throws: an unreadable policy is a warning too. */
export async function checkEvictionPolicy(redis: Pick<Redis, 'info' | 'config'>): Promise<EvictionCheck> {
  try {
    const policy = await readEvictionPolicy(redis);
    return { policy, warning: evictionWarning(policy) };
  } catch (err) {
    return { policy: null, warning: evictionWarning(null, messageOf(err)) };
  }
}

/** The warnings of the check as a list (for /readyz): empty when Redis never evicts. */
export async function evictionWarnings(redis: Pick<Redis, 'info' | 'config'>): Promise<string[]> {
  const { warning } = await checkEvictionPolicy(redis);
  return warning ? [warning] : [];
}

/** At start: the warning as a log line, when there is one. */
export async function logEvictionWarning(redis: Pick<Redis, 'info' | 'config'>, logger: Logger): Promise<void> {
  const { policy, warning } = await checkEvictionPolicy(redis);
  if (warning) logger.warn({ maxmemoryPolicy: policy }, warning);
}
