/**
 * The report's sections of issue 36 (many accounts in one deployment): what an idle account costs (bench/accounts-idle.ts)
 * and fair work across accounts (bench/accounts-fair.ts), each on one Redis or on a local Redis Cluster of three masters.
 */
import { runAccountsIdle, type AccountsIdleFigures } from '../accounts-idle.js';
import { FAIR_DEFAULTS, runBackfillPart, runBudgetPart, type BackfillFigures, type BudgetFigures } from '../accounts-fair.js';
import type { BenchOptions } from './bench-options.js';
import type { Part } from './bench-doc.js';
import { markdownTable } from './tables.js';

type Measured = Pick<Part, 'title' | 'body'>;
const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
const mb = (bytes: number) => Math.round(bytes / 1024 / 102.4) / 10;
const kb = (bytes: number) => Math.round(bytes / 1024);
/** WORKER_PARK_SECONDS of the parked rows: shorter than the settling, so that every idle worker is parked when measured. */
const PARK_SECONDS = 5;
const on = (cluster: boolean) => (cluster ? 'a local Redis Cluster of three masters (test/kit/local-cluster.ts)' : 'one redis-server');

/** Idle accounts: `npm run bench -- --only accounts-idle` (one Redis) or `accounts-idle-cluster`. */
export async function accountsIdleSection(o: BenchOptions, cluster: boolean, say: (line: string) => void): Promise<Measured> {
  const accounts = o.accounts ?? (o.quick ? 50 : 200);
  const [settle, seconds] = o.quick ? [10, 15] : [20, 30];
  const runs: AccountsIdleFigures[] = [];
  for (const processes of [1, 3])
    for (const park of [0, PARK_SECONDS]) {
      say(`accounts-idle: ${accounts} idle accounts, ${processes} worker process(es), WORKER_PARK_SECONDS=${park}, on ${on(cluster)}`);
      const f = await runAccountsIdle({ accounts, processes, seconds, settle, cluster, park, log: say });
      say(`  ${JSON.stringify(f)}`);
      runs.push(f);
    }
  const conns = (processes: number, park: number) => runs.find((f) => f.processes === processes && f.park === park)?.connections ?? NaN;
  const ratio = (processes: number) => Math.round((conns(processes, 0) / conns(processes, PARK_SECONDS)) * 100) / 100;
  const flag = cluster ? ' --cluster' : '';
  return {
    title: `Many accounts: what an idle account costs${cluster ? ' on a Redis Cluster' : ''}`,
    body: [
      `${accounts} accounts in one ACCOUNTS_FILE, every one idle (its feed polled and empty; one feed server and one sandbox for them all), served by 1 and by 3 \`inventory-sync worker\` ` +
        `processes (the real CLI, dist/) on ${on(cluster)} of their own. Measured once every process runs every account (each says so ` +
        `in the account's \`:workers\` hash) and ${settle} s more, over ${seconds} s: Redis commands a second (INFO \`total_commands_processed\`, ` +
        'summed over the masters), the Redis memory added since before the processes started (`used_memory`: keys and client buffers), ' +
        "the keys, the clients connected, the worker processes' CPU (summed, /proc), and each process's resident memory (VmHWM). Per account: divided by the accounts (RSS: a process's, " +
        'start-up included, as each process runs every account).',
      '',
      `Each with every worker open (\`WORKER_PARK_SECONDS=0\`) and with idle workers parked after ${PARK_SECONDS} s (the default is 120 s; ` +
        'an account parks once none of its queues had a job for that long): one connection of the account then waits on every parked queue.',
      '',
      `Commands: \`npx tsx bench/accounts-idle.ts --accounts ${accounts} --processes 1,3 --seconds ${seconds} --settle ${settle}${flag} --park 0\` ` +
        `and \`npx tsx bench/accounts-idle.ts --accounts ${accounts} --processes 1,3 --seconds ${seconds} --settle ${settle}${flag} --park ${PARK_SECONDS}\``,
      '',
      markdownTable(
        [
          'processes',
          'WORKER_PARK_SECONDS',
          'accounts',
          'all started after s',
          'Redis commands/s',
          'commands/s an account',
          'Redis memory MB',
          'memory an account KB',
          'keys an account',
          'connections',
          'workers CPU % of a core',
          'RSS a process MB',
          'RSS a process / accounts MB',
        ],
        runs.map((f) => [
          f.processes,
          f.park ?? 'default',
          f.accounts,
          f.startSeconds,
          f.opsPerSecond,
          Math.round(f.opsPerSecondPerAccount * 10) / 10,
          mb(f.memoryBytes),
          kb(f.memoryPerAccountBytes),
          f.keysPerAccount,
          f.connections,
          f.cpuPercent ?? 'n/a',
          mb(f.rssPerProcessBytes),
          mb(f.rssPerAccountBytes),
        ]),
      ),
      '',
      `Connections, every worker open against idle workers parked: ${ratio(1)}x with 1 process, ${ratio(3)}x with 3.`,
      '',
      'An idle account costs each process that runs it its own BullMQ workers (blocking fetches, stalled-job checks, the delayed-job ' +
        'timers, or one doorbell once parked), schedulers and polls: the commands a second and the connections grow with accounts × ' +
        'processes; the keys and most of the memory with the accounts alone.',
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
  const budgetMet = b.atLeast95 === b.accounts;
  const backfillMet = f.p99DeltaMs <= 1_000 && f.alone.missing + f.beside.missing === 0 && f.backfillPerMinute > 0 && f.backlogLeft > 0;
  return {
    title: `Many accounts: each at its budget, and a backfill beside live accounts${cluster ? ' on a Redis Cluster' : ''}`,
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
    ],
  };
}
