import type { RedisConnection as Redis } from '../../redis/connection.js';
import type { AccountState } from './account-work.js';

/**
 * The deployment's summary (docs/monitoring.md, "Many accounts"): what the sweep (sweep.ts) read of every account of
 * the deployment, open or closed in any process, written once a sweep into one hash, `<QUEUE_PREFIX>~deployment`,
 * for every process's /metrics to serve (one HGETALL a scrape, whatever the number of accounts): the totals of jobs by
 * state, streams paused, calls held and records waiting, and the accounts in trouble (the first TROUBLE_LISTED by name).
 * It expires after SUMMARY_SWEEPS sweeps not made: a deployment whose sweep stopped shows no stale figures.
 */

/** Why an account is in the summary's trouble list: a stream paused, a call held, a job failed in the last hour. */
export type SweptTrouble = 'stream-paused' | 'call-held' | 'jobs-failing';

/** How long a failed job makes its account in trouble: the longest window of the shipped rules' increase() (1 h). */
export const FAILED_RECENT_MS = 60 * 60_000;
/** Accounts in trouble the summary names at most (the first by name); `troubled` counts them all. */
export const TROUBLE_LISTED = 50;
/** Sweeps the summary outlives. */
const SUMMARY_SWEEPS = 5;

export interface DeploymentSummary {
  /** When the sweep read the accounts (epoch ms). */
  at: number;
  /** Accounts read. */
  accounts: number;
  /** Jobs by state, over every account: ready (waiting, prioritized or active), held (waiting in a paused queue),
   * failed (failed for good), failed-recent (of those, in the last hour), untold (failed since the alerts last looked). */
  jobs: { ready: number; held: number; failed: number; 'failed-recent': number; untold: number };
  /** Queues paused, calls of the service held, records waiting for a reference, over every account. */
  paused: number;
  heldCalls: number;
  waits: number;
  /** Accounts in trouble, all of them. */
  troubled: number;
  /** The first TROUBLE_LISTED of them by name, with why. */
  trouble: Array<{ account: string; reasons: SweptTrouble[] }>;
}

export const deploymentKey = (base: string) => `${base}~deployment`;

/** Why the account is in trouble (none: it is well). */
function troubleOf(s: AccountState): SweptTrouble[] {
  const why: SweptTrouble[] = [];
  if (s.failedRecent > 0 || s.untold > 0) why.push('jobs-failing');
  if (s.heldCalls > 0) why.push('call-held');
  if (s.paused > 0) why.push('stream-paused');
  return why;
}

/** The summary of one sweep's reads. */
export function summarize(states: ReadonlyMap<string, AccountState>, at: number): DeploymentSummary {
  const jobs = { ready: 0, held: 0, failed: 0, 'failed-recent': 0, untold: 0 };
  let [paused, heldCalls, waits] = [0, 0, 0];
  const trouble: DeploymentSummary['trouble'] = [];
  for (const [account, s] of states) {
    jobs.ready += s.ready;
    jobs.held += s.held;
    jobs.failed += s.failed;
    jobs['failed-recent'] += s.failedRecent;
    jobs.untold += s.untold;
    paused += s.paused;
    heldCalls += s.heldCalls;
    waits += s.waits;
    const reasons = troubleOf(s);
    if (reasons.length) trouble.push({ account, reasons });
  }
  trouble.sort((a, b) => (a.account < b.account ? -1 : a.account > b.account ? 1 : 0));
  const listed = trouble.slice(0, TROUBLE_LISTED);
  return { at, accounts: states.size, jobs, paused, heldCalls, waits, troubled: trouble.length, trouble: listed };
}

const JOB_STATES = ['ready', 'held', 'failed', 'failed-recent', 'untold'] as const;

/** Writes the summary over the last one (one MULTI), to expire after SUMMARY_SWEEPS sweeps of `everyMs`: a field a
 * figure (`jobs:ready`, `paused`, ...), and `trouble` the accounts listed in JSON, as `redis-cli HGETALL` shows it. */
export async function writeSummary(redis: Redis, base: string, s: DeploymentSummary, everyMs: number): Promise<void> {
  const key = deploymentKey(base);
  const fields: Record<string, string | number> = { at: s.at, accounts: s.accounts, troubled: s.troubled };
  for (const state of JOB_STATES) fields[`jobs:${state}`] = s.jobs[state];
  Object.assign(fields, { paused: s.paused, 'held-calls': s.heldCalls, waits: s.waits, trouble: JSON.stringify(s.trouble) });
  await redis
    .multi()
    .del(key)
    .hset(key, fields)
    .pexpire(key, SUMMARY_SWEEPS * everyMs)
    .exec();
}

/** The last sweep's summary, or undefined when there is none (no sweep yet, or none for SUMMARY_SWEEPS periods). */
export async function readSummary(redis: Redis, base: string): Promise<DeploymentSummary | undefined> {
  const h = await redis.hgetall(deploymentKey(base));
  if (h.at === undefined) return undefined;
  const n = (field: string) => Number(h[field] ?? 0);
  const jobs = Object.fromEntries(JOB_STATES.map((state) => [state, n(`jobs:${state}`)])) as DeploymentSummary['jobs'];
  const trouble = JSON.parse(h.trouble ?? '[]') as DeploymentSummary['trouble'];
  return {
    at: n('at'),
    accounts: n('accounts'),
    jobs,
    paused: n('paused'),
    heldCalls: n('held-calls'),
    waits: n('waits'),
    troubled: n('troubled'),
    trouble,
  };
}
