/**
 * The report's sections of issue 36 (many accounts in one deployment): what an idle account costs (bench/accounts-idle.ts)
 * and fair work across accounts (bench/accounts-fair.ts), each on one Redis or on a local Redis Cluster of three masters.
 */
import { runAccountsIdle, type AccountsIdleFigures } from '../accounts-idle.js';
import { FAIR_DEFAULTS, runBackfillPart, runBudgetPart, type BackfillFigures, type BudgetFigures } from '../accounts-fair.js';
import type { BenchOptions } from './bench-options.js';
import type { Part } from './bench-doc.js';
import { markdownTable } from './tables.js';
import { fairnessBody } from './accounts-fairness-section.js';

type Measured = Pick<Part, 'title' | 'body'>;
const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
const mb = (bytes: number) => Math.round(bytes / 1024 / 102.4) / 10;
const kb = (bytes: number) => Math.round(bytes / 1024);
/** WORKER_PARK_SECONDS of every run: shorter than the settling, so that every idle worker is parked when measured. */
const PARK_SECONDS = 5;
/** The polling accounts' order feed: polled this often (issue 56's idle account polls an empty feed every 10 s). */
const POLL_SECONDS = 10;
/**
 * Runs of more accounts × processes are left out: with a stack per account in every process, 1,000 accounts in 3
 * processes take minutes to start on the 2-CPU test machine (and hold ~12,000 connections, over Redis's default 10,000).
 */
const MAX_ACCOUNT_PROCESSES = 1_000;
/** A run whose accounts have not started in every process by then is given up (and said so under the table). */
const START_LIMIT_SECONDS = 240;
/** Issue 56's bounds per idle account. */
const TARGETS = { connections: 0.05, commandsPerSecond: 0.5, rssKb: 100 };
const on = (cluster: boolean) => (cluster ? 'a local Redis Cluster of three masters (test/kit/local-cluster.ts)' : 'one redis-server');
const world = (f: AccountsIdleFigures) => (f.pushedOnly ? 'pushed only' : `polled every ${f.pollSeconds} s`);
/** A figure and its ratio to the bound. */
const vs = (value: number, target: number) => `${value} (${Math.round((value / target) * 10) / 10}x)`;

/** The runs of the section: both worlds, each count of accounts with 1 and 3 processes, as many as fit. */
function idleRuns(o: BenchOptions, cluster: boolean): Array<{ accounts: number; processes: number; pushedOnly: boolean }> {
  const counts = o.accounts ? [o.accounts] : o.quick ? [50] : cluster ? [200] : [200, 1_000];
  return [true, false].flatMap((pushedOnly) =>
    counts.flatMap((accounts) =>
      [1, 3]
        .filter((processes) => accounts * processes <= MAX_ACCOUNT_PROCESSES || counts.length === 1)
        .map((processes) => ({ accounts, processes, pushedOnly })),
    ),
  );
}

/** What a process's RSS grew by per account from the fewest accounts to the most, KB (one process, one world). */
function marginalRssKb(runs: AccountsIdleFigures[], pushedOnly: boolean): number | undefined {
  const one = runs.filter((f) => f.processes === 1 && f.pushedOnly === pushedOnly).sort((a, b) => a.accounts - b.accounts);
  const [lo, hi] = [one[0], one[one.length - 1]];
  return lo && hi && hi.accounts > lo.accounts
    ? kb((hi.rssPerProcessBytes - lo.rssPerProcessBytes) / (hi.accounts - lo.accounts))
    : undefined;
}

/** Idle accounts: `npm run bench -- --only accounts-idle` (one Redis) or `accounts-idle-cluster`. */
export async function accountsIdleSection(o: BenchOptions, cluster: boolean, say: (line: string) => void): Promise<Measured> {
  const [settle, seconds] = o.quick ? [8, 10] : [10, 20];
  const runs: AccountsIdleFigures[] = [];
  const failed: string[] = [];
  for (const r of idleRuns(o, cluster)) {
    const what = r.pushedOnly ? 'pushed only' : `polled every ${POLL_SECONDS} s`;
    say(`accounts-idle: ${r.accounts} idle accounts (${what}), ${r.processes} worker process(es), on ${on(cluster)}`);
    const f = await runAccountsIdle({
      startLimitSeconds: START_LIMIT_SECONDS,
      ...r,
      ...(r.pushedOnly ? {} : { pollSeconds: POLL_SECONDS }),
      seconds,
      settle,
      cluster,
      park: PARK_SECONDS,
      log: say,
    }).catch((err: unknown) => {
      say(`  failed: ${(err as Error).message}`);
      failed.push(`${r.accounts} accounts ${what}, ${r.processes} processes: ${(err as Error).message}`);
      return undefined;
    });
    if (!f) continue;
    say(`  ${JSON.stringify(f)}`);
    runs.push(f);
  }
  const flag = cluster ? ' --cluster' : '';
  const counts = [...new Set(runs.map((f) => f.accounts))].join(' and ');
  const marginal = [true, false].flatMap((pushedOnly) => {
    const m = marginalRssKb(runs, pushedOnly);
    return m === undefined ? [] : [`${m} KB ${pushedOnly ? 'pushed only' : 'polled'}`];
  });
  return {
    title: `Many accounts: what an idle account costs${cluster ? ' on a Redis Cluster' : ''}`,
    body: [
      `${counts} accounts in one ACCOUNTS_FILE, every one idle, served by 1 and by 3 \`inventory-sync worker\` processes (the real CLI, dist/) ` +
        `on ${on(cluster)} of their own, in two worlds: **pushed only** (no UPSTREAM_URL: the accounts take pushes, none comes, nothing is polled) and ` +
        `**polled every ${POLL_SECONDS} s** (the order feed, ORDER_POLL_SECONDS=${POLL_SECONDS}, and the BOM feed every 60 s, polled and empty; one feed server ` +
        `and one sandbox for them all). Idle workers parked after ${PARK_SECONDS} s (\`WORKER_PARK_SECONDS\`; the default is 120 s). ` +
        `Fewer runs than 1,000 accounts × 3 processes where the accounts × processes pass ${MAX_ACCOUNT_PROCESSES.toLocaleString('en')}: every ` +
        'process still runs a stack per account (issue 56, item 1 not done), and those take minutes to start on this machine.',
      '',
      `Ready: from each process's spawn to its \`worker started\` line (the slowest process's), and to every account started in every process ` +
        `(each says so in the account's \`:workers\` hash; looked at every second). Then ${settle} s more, and measured over ${seconds} s: Redis commands ` +
        'a second (INFO `total_commands_processed`, summed over the masters), the Redis memory added since before the processes started (`used_memory`: ' +
        "keys and client buffers), the keys, the clients connected, the worker processes' CPU (summed, /proc), and each process's resident memory " +
        "(VmHWM). Per account: divided by the accounts (RSS: a process's, start-up included, as each process runs every account). In brackets: the " +
        `figure over issue 56's bound for an idle account (${TARGETS.connections} connections, ${TARGETS.commandsPerSecond} commands a second, ` +
        `${TARGETS.rssKb} KB of each process's memory): 1x is at the bound. The ready times are timings: they move with the machine's load (the line above).`,
      '',
      `Commands: \`npx tsx bench/accounts-idle.ts --accounts N --processes 1,3 --seconds ${seconds} --settle ${settle} --park ${PARK_SECONDS}${flag} --pushed-only\` ` +
        `and \`npx tsx bench/accounts-idle.ts --accounts N --processes 1,3 --seconds ${seconds} --settle ${settle} --park ${PARK_SECONDS}${flag} --poll-seconds ${POLL_SECONDS}\``,
      '',
      markdownTable(
        [
          'idle accounts',
          'processes',
          'accounts',
          'ready: `worker started` after s',
          'every account started after s',
          'connections',
          'connections an account',
          'Redis commands/s',
          'commands/s an account',
          'Redis memory an account KB',
          'keys an account',
          'workers CPU % of a core',
          'RSS a process MB',
          'RSS a process / accounts KB',
        ],
        runs.map((f) => [
          world(f),
          f.processes,
          f.accounts,
          f.readySeconds,
          f.startSeconds,
          f.connections,
          vs(f.connectionsPerAccount, TARGETS.connections),
          f.opsPerSecond,
          vs(Math.round(f.opsPerSecondPerAccount * 100) / 100, TARGETS.commandsPerSecond),
          kb(f.memoryPerAccountBytes),
          f.keysPerAccount,
          f.cpuPercent ?? 'n/a',
          mb(f.rssPerProcessBytes),
          vs(kb(f.rssPerAccountBytes), TARGETS.rssKb),
        ]),
      ),
      '',
      ...(marginal.length
        ? [`A process's RSS grew per account added (1 process, from the fewest accounts to the most): ${marginal.join(', ')}.`, '']
        : []),
      'An idle account still costs each process that runs it its own BullMQ workers (parked: one doorbell connection waiting on every queue of the ' +
        'account, and its stalled-job checks) and their memory: the connections and the RSS grow with accounts × processes. The polls do not: every ' +
        "account's schedule is a member of the deployment's due set, and each process runs one loop over it.",
    ],
  };
}

const budgetRow = (f: BudgetFigures) => [
  f.accounts,
  f.workers,
  f.budget,
  f.bound,
  f.seconds,
  f.lowest,
  f.median,
  `${f.atLeast95} of ${f.accounts}`,
  `${Math.round(f.worstOfBound * 1000) / 10}%`,
];

const latencyRow = (phase: string, l: BackfillFigures['alone']) => [phase, l.orders, l.p50Ms, l.p99Ms, l.maxMs, l.missing];

/** Fair work across accounts: `npm run bench -- --only accounts-fair` (one Redis) or `accounts-fair-cluster`. */
export async function accountsFairSection(o: BenchOptions, cluster: boolean, say: (line: string) => void): Promise<Measured> {
  const d = FAIR_DEFAULTS;
  const accounts = o.accounts ?? (o.quick ? 10 : d.accounts);
  const seconds = o.quick ? 60 : d.seconds;
  const backfill = o.quick ? 5_000 : d.backfill;
  const liveSeconds = o.quick ? 60 : d.liveSeconds;
  const liveRate = d.budget / 8;
  const flag = cluster ? ' --cluster' : '';
  say(`accounts-fair: ${accounts} accounts each at its budget, on ${on(cluster)}`);
  const b = await runBudgetPart({ accounts, budget: d.budget, seconds, workers: d.workers, cluster, log: say });
  say(`  ${JSON.stringify(b)}`);
  say(`accounts-fair: a ${backfill}-order backfill beside ${d.live} live accounts, on ${on(cluster)}`);
  const f = await runBackfillPart({
    live: d.live,
    backfill,
    budget: d.budget,
    backfillBudget: d.backfillBudget,
    liveRate,
    seconds: liveSeconds,
    latencyMs: d.latencyMs,
    workers: d.workers,
    cluster,
    log: say,
  });
  say(`  ${JSON.stringify(f)}`);
  // The fair turns of issue 56 on one Redis (the world; its section asks for one Redis).
  const fairness = cluster ? [] : ['', ...(await fairnessBody(o, say))];
  const budgetMet = b.atLeast95 === b.accounts;
  const backfillMet = f.p99DeltaMs <= 1_000 && f.alone.missing + f.beside.missing === 0 && f.backfillPerMinute > 0 && f.backlogLeft > 0;
  return {
    title: `Many accounts: each at its budget, a backfill beside live accounts${cluster ? ' on a Redis Cluster' : ', and fair turns'}`,
    body: [
      `One \`inventory-sync worker\` process (the real CLI, dist/) on ${on(cluster)} of its own serves every account of one ACCOUNTS_FILE; ` +
        'each account has its own sandbox (in the bench process) with a POST budget in fixed 1-minute windows, its INVENTORY_POST_PER_MINUTE the same, ' +
        'and its own feed, polled every second (ORDER_POLL_SECONDS=1; the default is 5).',
      '',
      `Each at its budget: ${b.accounts} accounts at ${b.budget} POST a minute (bound ${b.bound} orders a minute: an order is 4 POSTs), each ` +
        `with more orders in its feed than it can sync; the orders each completed over ${b.seconds} s, measured once every account had completed its first ` +
        '(the windows are fixed: a measure that is not a whole number of them can count a little more than the bound).',
      '',
      `Command: \`npx tsx bench/accounts-fair.ts --part budget --accounts ${b.accounts} --budget ${b.budget} --seconds ${b.seconds}${flag}\``,
      '',
      markdownTable(
        [
          'accounts',
          'processes',
          'POST budget/min',
          'bound orders/min',
          's',
          'lowest orders/min',
          'median orders/min',
          'at ≥ 95% of bound',
          'lowest of bound',
        ],
        [budgetRow(b)],
      ),
      '',
      `Every account at least 95% of its bound: ${met(budgetMet)}.`,
      '',
      `A backfill beside live accounts: ${f.live} live accounts at ${f.budget} POST a minute, each getting an order every ${Math.round(60 / f.liveRate)} s ` +
        `(half its bound; the accounts' turns spread over that interval), and one backfill account at ${f.backfillBudget} POST a minute ` +
        `(bound ${f.backfillBound} orders a minute: a large account, so that its backlog weighs on the worker); ${d.latencyMs} ms sandbox latency. ` +
        `In one run: ${f.seconds} s of live orders alone; then the backfill account's ${f.backfill.toLocaleString('en')} orders queued at once ` +
        `(\`inventory-sync import orders FILE --account backfill\`, ${f.importSeconds} s) and worked at its budget while the live orders go on ` +
        `for ${f.seconds} s more. Each live order is timed from its append to its feed to its job's completion (finishedOn); ` +
        `most of it is the account's pace: its client spreads its ${f.budget} POSTs a minute evenly, so an order's 4 POSTs take ${Math.round(240 / f.budget)} s or so.`,
      '',
      `Command: \`npx tsx bench/accounts-fair.ts --part backfill --live ${f.live} --budget ${f.budget} --live-seconds ${f.seconds} --backfill ${f.backfill} --backfill-budget ${f.backfillBudget} --latency ${d.latencyMs}${flag}\``,
      '',
      markdownTable(
        ['live orders', 'orders', 'p50 ms', 'p99 ms', 'max ms', 'not completed'],
        [latencyRow('alone', f.alone), latencyRow('beside the backfill', f.beside)],
      ),
      '',
      `Beside / alone: p50 **${f.p50Ratio}x**, p99 **${f.p99Ratio}x** (p99 ${f.p99DeltaMs >= 0 ? '+' : ''}${f.p99DeltaMs} ms). ` +
        `The backfill account meanwhile completed **${f.backfillPerMinute}** orders a minute (${Math.round((f.backfillPerMinute / f.backfillBound) * 100)}% of its bound), ` +
        `${f.backlogLeft.toLocaleString('en')} left at the end. Live p99 within 1 s of alone, every live order completed, the backlog worked all along: ${met(backfillMet)}.`,
      ...fairness,
    ],
  };
}
