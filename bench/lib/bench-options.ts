import { parseArgs } from 'node:util';
import { parseProfile } from '../../src/sandbox/profile-rules.js';
import { sandboxDefaults, type SandboxProfile } from '../../src/sandbox/sandbox-options.js';

export const SECTIONS = [
  'orders',
  'total',
  'overhead',
  'stock',
  'import',
  'sandbox',
  'scale-out',
  'redis',
  'shared',
  'shared-start',
  'unbudgeted',
  'failover',
  'redis-full',
  'call-hold',
  'push',
  'accounts-idle',
  'accounts-idle-cluster',
  'accounts-fair',
  'accounts-fair-cluster',
  'store',
  'accounts-status',
  'log-redaction',
  'accounts-page',
  'metrics',
] as const;
export type Section = (typeof SECTIONS)[number];

export interface BenchOptions {
  /** POST budgets a minute of the orders matrix. */
  budgets: number[];
  /** Total budgets a minute (INVENTORY_REQUESTS_PER_MINUTE, the account's only limit) of the total section. */
  totals: number[];
  /** Latencies (ms) the sandbox adds, for the orders matrix and the total section. */
  latencies: number[];
  /** Seconds each budgeted measurement (workers, then the baseline) lasts. */
  seconds: number;
  /** Worker processes of the budgeted runs. */
  processes: number;
  /** Runs of the overhead and import measurements (medians). */
  runs: number;
  only: Section[];
  /** Where the report goes. */
  out: string;
  /** Measure the import through tsx instead of building dist/ first. */
  tsx: boolean;
  /** How every sandbox of the run answers (docs/sandbox.md "Profiles"). */
  profile: SandboxProfile;
  /** Shorter runs (--quick). */
  quick: boolean;
  /**
   * Accounts of the accounts-idle, accounts-fair, accounts-status, accounts-page and log-redaction sections (default:
   * 10,000 idle pushed only and 1,000 idle polled, 50 at their budget, 1,000 and 10,000 for status, 10,000 on the page,
   * 10,000 secrets; --quick: a tenth of the idle ones, 10, 1,000, 1,000 and 2,000).
   */
  accounts?: number;
}

/**
 * `npm run bench [-- --quick] [--only orders,total,import,accounts-idle] [--budgets 600,1200] [--totals 1200] [--latencies 0,50]
 * [--seconds 45] [--processes 3] [--runs 3] [--profile observed|spec] [--accounts 200] [--out FILE]`
 */
export function parseBenchArgs(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean' },
      only: { type: 'string' },
      budgets: { type: 'string' },
      totals: { type: 'string' },
      latencies: { type: 'string' },
      seconds: { type: 'string' },
      processes: { type: 'string' },
      runs: { type: 'string' },
      out: { type: 'string' },
      tsx: { type: 'boolean' },
      profile: { type: 'string' },
      accounts: { type: 'string' },
    },
    strict: true,
  });
  const list = (v: string | undefined, d: number[]) => (v ? v.split(',').map((x) => Number(x.trim())) : d);
  const only = values.only ? values.only.split(',').map((s) => s.trim()) : [...SECTIONS];
  for (const s of only)
    if (!(SECTIONS as readonly string[]).includes(s)) throw new Error(`--only: unknown section ${s} (sections: ${SECTIONS.join(', ')})`);
  const o: BenchOptions = {
    budgets: list(values.budgets, values.quick ? [1200] : [600, 1200, 2400]),
    totals: list(values.totals, [1200]),
    latencies: list(values.latencies, [0, 50]),
    seconds: Number(values.seconds ?? (values.quick ? 20 : 40)),
    processes: Number(values.processes ?? 3),
    runs: Number(values.runs ?? (values.quick ? 1 : 3)),
    only: only as Section[],
    out: values.out ?? 'docs/benchmarks.md',
    tsx: values.tsx === true,
    profile: values.profile === undefined ? sandboxDefaults.profile : parseProfile(values.profile),
    quick: values.quick === true,
    accounts: values.accounts === undefined ? undefined : Number(values.accounts),
  };
  for (const [name, v] of Object.entries({ seconds: o.seconds, processes: o.processes, runs: o.runs, accounts: o.accounts ?? 1 })) {
    if (!Number.isInteger(v) || v < 1) throw new Error(`--${name} must be a whole number of 1 or more`);
  }
  for (const b of o.budgets) if (!Number.isInteger(b) || b < 4) throw new Error('--budgets: whole numbers of 4 or more (POST a minute)');
  for (const t of o.totals) if (!Number.isInteger(t) || t < 4) throw new Error('--totals: whole numbers of 4 or more (requests a minute)');
  for (const l of o.latencies) if (!(l >= 0)) throw new Error('--latencies: numbers of ms, 0 or more');
  return o;
}
