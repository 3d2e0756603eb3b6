import { parseArgs } from 'node:util';
import { z } from 'zod';
import { SANDBOX_PROFILES, sandboxDefaults, type SandboxProfile } from '../../src/sandbox/sandbox-options.js';

/** Settings of one chaos run. Two presets: the full run (docs/chaos.md) and the short one CI runs. */
export const chaosOptionsSchema = z.object({
  /** Good orders in the feed. */
  orders: z.number().int().min(10),
  /** Worker processes running at once. */
  workers: z.number().int().min(1).max(16),
  /**
   * Accounts of the deployment. 1: the environment's one account, no ACCOUNTS_FILE (as before the turns). More: an
   * ACCOUNTS_FILE whose `default` account is the run's first (every phase's faults are its own) and others, each its
   * own sandbox, API key and feed with records of its own (smaller: `orders / 5`), so that the workers run them by turns
   * (docs/accounts.md, "How accounts take turns") and every rule is checked per account (chaos-accounts.ts).
   */
  accounts: z.number().int().min(1).max(8),
  /** SIGKILLs of a worker process (each restarted after a short pause). */
  kills: z.number().int().min(0),
  /**
   * Freezes of a worker process (SIGSTOP, then SIGCONT after freezeSeconds), longer than a job's lock (issue 50): its
   * jobs are taken over by another execution, and the frozen one, once thawed, must write nothing of them.
   */
  freezes: z.number().int().min(0),
  freezeSeconds: z.number().int().min(1),
  /** JOB_LOCK_SECONDS of the workers: the life of a job's lock and of its execution's lease. */
  jobLockSeconds: z.number().int().min(1),
  /** Graceful restarts of Redis (SHUTDOWN, then start on the same port and folder). */
  redisRestarts: z.number().int().min(0),
  seed: z.number().int(),
  countsPerLocation: z.number().int().min(1).max(28),
  /** Share of the count products in each location's pool; each count lists about 60% of its pool. */
  countShare: z.number().min(0.05).max(1),
  boms: z.number().int().min(0).max(30),
  redeliveryRate: z.number().min(0).max(1),
  /**
   * Share of the good orders delivered through an NDJSON file instead of the feed: the real `import orders FILE`
   * runs during the storm, right after the first worker kill. With bad rounds the file holds a few bad records too
   * (one line not JSON). 0 turns the import off.
   */
  importShare: z.number().min(0).max(0.5),
  badRounds: z.number().int().min(0),
  /**
   * Order lives beside the good orders, as a share of their number: orders told as snapshots (open, edited, shipped
   * in two parts, fulfilled, returned; or open, then cancelled), delivered through the feed. 0 leaves them out.
   */
  lifeShare: z.number().min(0).max(1),
  /** WORKER_CONCURRENCY of each worker. */
  concurrency: z.number().int().min(1),
  /** VARIANCE_CHUNK_SIZE: small, so counts span several variances. */
  chunkSize: z.number().int().min(1),
  /** The client's POST budget (INVENTORY_POST_PER_MINUTE); the sandbox enforces the same in 1 s windows. */
  postPerMinute: z.number().int().min(60),
  /**
   * One budget for every request (INVENTORY_REQUESTS_PER_MINUTE), beside the per-class ones; the sandbox enforces
   * the same in 1 s windows. Default: none.
   */
  totalPerMinute: z.number().int().min(60).optional(),
  /** How the sandbox answers (docs/sandbox.md "Profiles"). */
  profile: z.enum(SANDBOX_PROFILES as [SandboxProfile, ...SandboxProfile[]]),
  /** Share of that budget the sandbox allows during the tight-budget phase (429s). */
  tightShare: z.number().min(0.05).max(1),
  /** Revoke the API key halfway (every request 401) until the orders stream pauses, then restore it and `resume`. */
  revokeKey: z.boolean(),
  /** The service answers 503 to everything this long, past the jobs' retries (issue 26); 0 leaves the phase out. */
  outageSeconds: z.number().int().min(0),
  /** Partial outages (issue 45): this many times, one call of the service answers 503 while the rest answers. */
  callDowns: z.number().int().min(0),
  /** How long each partial outage lasts. */
  callDownSeconds: z.number().int().min(1),
  /**
   * The workers read the API key and secret from files (INVENTORY_API_KEY_FILE...), and at 80% of the orders the
   * account's credentials are rotated: the service takes only the new ones, and the files are rewritten in place.
   */
  rotateSecret: z.boolean(),
  /** Redis refuses writes (maxmemory reached) this long, then is raised (issue 26); 0 leaves the phase out. */
  redisFullSeconds: z.number().int().min(0),
  /** Multiplies every fault rate (0 turns faults off). */
  faultScale: z.number().min(0).max(5),
  /** Run the compiled dist/ instead of the sources through tsx. */
  dist: z.boolean(),
  /** Where the logs go; default a fresh folder under the OS temp dir. */
  logDir: z.string().optional(),
  /** Write the report as JSON here. */
  json: z.string().optional(),
  /** Write the report as Markdown here (docs/chaos.md). */
  markdown: z.string().optional(),
  /** Give up draining after this long. */
  drainTimeoutSeconds: z.number().int().min(10),
});
export type ChaosOptions = z.infer<typeof chaosOptionsSchema>;

export const fullPreset: ChaosOptions = {
  orders: 5000,
  workers: 3,
  accounts: 3,
  kills: 5,
  freezes: 3,
  freezeSeconds: 25,
  jobLockSeconds: 10,
  redisRestarts: 1,
  seed: 7,
  countsPerLocation: 4,
  countShare: 0.3,
  boms: 30,
  redeliveryRate: 0.1,
  importShare: 0.25,
  badRounds: 3,
  lifeShare: 0.1,
  concurrency: 8,
  chunkSize: 5,
  postPerMinute: 6000,
  profile: sandboxDefaults.profile,
  tightShare: 0.4,
  faultScale: 1,
  revokeKey: true,
  // Longer than a job's retries (JOB_ATTEMPTS 40, at most 2 s apart: about 80 s).
  outageSeconds: 90,
  callDowns: 3,
  callDownSeconds: 45,
  redisFullSeconds: 25,
  rotateSecret: true,
  dist: false,
  drainTimeoutSeconds: 900,
};

export const shortPreset: ChaosOptions = {
  ...fullPreset,
  orders: 300,
  // 75 of the 300 orders through the import (in batches of 20: see chaos-import.ts).
  importShare: 0.25,
  workers: 2,
  kills: 2,
  freezes: 2,
  freezeSeconds: 15,
  redisRestarts: 1,
  countsPerLocation: 3,
  boms: 10,
  badRounds: 1,
  outageSeconds: 20,
  callDowns: 1,
  callDownSeconds: 15,
  redisFullSeconds: 10,
  drainTimeoutSeconds: 300,
};

const numeric = [
  'orders',
  'workers',
  'accounts',
  'kills',
  'freezes',
  'freeze-seconds',
  'job-lock-seconds',
  'redis-restarts',
  'seed',
  'counts-per-location',
  'count-share',
  'boms',
  'redelivery-rate',
  'import-share',
  'bad-rounds',
  'life-share',
  'concurrency',
  'chunk-size',
  'post-per-minute',
  'total-per-minute',
  'tight-share',
  'fault-scale',
  'drain-timeout-seconds',
  'outage-seconds',
  'call-downs',
  'call-down-seconds',
  'redis-full-seconds',
] as const;

const camel = (s: string) => s.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * `--short` picks the CI preset; any other flag overrides one setting (e.g. --orders 1000 --kills 3,
 * --profile observed --total-per-minute 6000).
 */
export function parseChaosArgs(argv: string[]): ChaosOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      short: { type: 'boolean' },
      dist: { type: 'boolean' },
      'no-revoke': { type: 'boolean' },
      'no-rotate': { type: 'boolean' },
      'log-dir': { type: 'string' },
      json: { type: 'string' },
      markdown: { type: 'string' },
      profile: { type: 'string' },
      ...Object.fromEntries(numeric.map((n) => [n, { type: 'string' as const }])),
    },
    strict: true,
  });
  const base: Record<string, unknown> = { ...(values.short ? shortPreset : fullPreset) };
  for (const n of numeric) {
    const v = (values as Record<string, string | boolean | undefined>)[n];
    if (typeof v === 'string') base[camel(n)] = Number(v);
  }
  if (values.dist) base.dist = true;
  if (values['no-revoke']) base.revokeKey = false;
  if (values['no-rotate']) base.rotateSecret = false;
  if (typeof values['log-dir'] === 'string') base.logDir = values['log-dir'];
  if (typeof values.json === 'string') base.json = values.json;
  if (typeof values.markdown === 'string') base.markdown = values.markdown;
  if (typeof values.profile === 'string') base.profile = values.profile;
  const parsed = chaosOptionsSchema.safeParse(base);
  if (!parsed.success)
    throw new Error(`chaos options: ${parsed.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}
