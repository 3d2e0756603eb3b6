/**
 * The report's section of issue 36 on fair work across accounts (bench/accounts-fair.ts): each account at its budget,
 * a backfill beside live accounts, and fair turns, on one Redis or on a local Redis Cluster of three masters.
 */
import { FAIR_DEFAULTS, runBackfillPart, runBudgetPart, type BackfillFigures, type BudgetFigures } from '../accounts-fair.js';
import type { BenchOptions } from './bench-options.js';
import type { Part } from './bench-doc.js';
import { markdownTable } from './tables.js';
import { fairnessBody } from './accounts-fairness-section.js';
import { met, on } from './accounts-sections.js';

type Measured = Pick<Part, 'title' | 'body'>;
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
  f.completedLowest,
  f.completedMedian,
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
  return accountsFairReport(b, f, fairness, cluster);
}

/** The section from its figures: each at its budget, the backfill, and the fair turns' paragraphs (none on a cluster). */
export function accountsFairReport(b: BudgetFigures, f: BackfillFigures, fairness: string[], cluster: boolean): Measured {
  const d = FAIR_DEFAULTS;
  const flag = cluster ? ' --cluster' : '';
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
        `with more orders in its feed than it can sync; counted over the ${b.seconds / 60} whole budget windows (fixed, 1 minute, aligned on the ` +
        "clock's minutes) from the first to start once every account had completed its first order: the POSTs each account's sandbox took into " +
        'its budget (its request log), a minute, over 4, and the orders each completed in the same windows (finishedOn). Together ' +
        `${b.completedTotal.toLocaleString('en')} orders completed and ${b.postsTotalOver4.toLocaleString('en')} orders' POSTs taken: what ` +
        "differs is the orders in flight at the windows' two ends (8 or so jobs at once an account, each waiting for the budget's next slot " +
        "in turn, so they complete together and a window's end can cut such a group).",
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
          'lowest POSTs/min ÷ 4',
          'median POSTs/min ÷ 4',
          'at ≥ 95% of bound',
          'lowest of bound',
          'lowest orders completed/min',
          'median orders completed/min',
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
