import { accountKeysPattern, accountOfKey, accountPrefix } from '../../config/accounts.js';
import { redisKeys, type RedisConnection as Redis } from '../redis/connection.js';
import { countKeysUnder, scanEachServer } from '../redis/key-scan.js';
import { failedNowCount, streamFailures } from './failures-now.js';
import { readHolds } from '../queue/hold/hold-report.js';
import type { StreamQueues } from '../queue/stream-queues.js';
import { readWorkers } from './worker-presence.js';

/** A stream of an account: its jobs still to run and failed, and its hold when it has one. */
export interface AccountStream {
  stream: string;
  /** Jobs still to run: waiting, delayed and prioritized. */
  waiting: number;
  failed: number;
  /**
   * Why it takes no job now (src/queue/hold/): the service down for everything, or the account's refusals; `reason`:
   * the failure that held it (`[CODE] message`).
   */
  held: { cause: 'outage' | 'refusals'; since: string | null; reason: string | null } | null;
}

/** An account of the deployment as `accounts list` shows it. */
export interface AccountState {
  account: string;
  prefix: string;
  /** Where its service is and the account there; null when the service is not configured. */
  service: { account: string; baseUrl: string } | null;
  streams: AccountStream[];
}

/** An account whose keys are in Redis but whom the file no longer names: its data kept until `accounts purge`. */
export interface RemovedAccount {
  account: string;
  prefix: string;
  keys: number;
}

/** An account's streams: their jobs to run (BullMQ's counts), failed now (src/ops/failures-now.ts) and their holds (the hold readers). */
export async function readAccountState(
  redis: Redis,
  queues: StreamQueues,
  o: { account: string; service: AccountState['service'] },
): Promise<AccountState> {
  const holds = await readHolds(redis, redisKeys(queues.prefix), queues.names);
  const streams = await Promise.all(
    holds.streams.map(async (b): Promise<AccountStream> => {
      const [c, failures] = await Promise.all([
        queues.get(b.stream).getJobCounts('waiting', 'delayed', 'prioritized'),
        streamFailures(queues, b.stream),
      ]);
      const held: AccountStream['held'] = holds.outage.open
        ? { cause: 'outage', since: holds.outage.since, reason: holds.outage.reason }
        : b.paused
          ? { cause: 'refusals', since: b.since, reason: b.code ? `[${b.code}] ${b.reason ?? ''}` : b.reason }
          : null;
      // Failed now, as status counts it: not a failure a newer version of its record superseded.
      const failed = failedNowCount(failures);
      return { stream: b.stream, waiting: (c.waiting ?? 0) + (c.delayed ?? 0) + (c.prioritized ?? 0), failed, held };
    }),
  );
  return { account: o.account, prefix: queues.prefix, service: o.service, streams };
}

/**
 * The accounts whose keys are in Redis (`{base-NAME}:*`, SCAN on every master of a cluster) but that `named` does not
 * hold, with how many keys each has, by name.
 */
export async function findRemovedAccounts(redis: Redis, base: string, named: ReadonlySet<string>): Promise<RemovedAccount[]> {
  const keys = new Map<string, number>();
  await scanEachServer(redis, accountKeysPattern(base), (batch) => {
    for (const key of batch) {
      const name = accountOfKey(base, key);
      if (name !== undefined && !named.has(name)) keys.set(name, (keys.get(name) ?? 0) + 1);
    }
  });
  return [...keys.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([account, n]) => ({ account, prefix: accountPrefix(base, account), keys: n }));
}

/** What `accounts purge` would delete: the keys under the account's prefix, and the workers that still run it. */
export async function purgePlan(redis: Redis, prefix: string): Promise<{ keys: number; workers: number }> {
  const [keys, workers] = await Promise.all([countKeysUnder(redis, prefix), readWorkers(redis, redisKeys(prefix))]);
  return { keys, workers: workers.length };
}
