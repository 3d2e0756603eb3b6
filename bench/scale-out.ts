/**
 * Scaling out (docs/deployment.md "Scaling out"): the same budgeted order run (bench/orders-throughput.ts) with
 * several worker processes sharing one account's budget, once on the single Redis and once on a local three-node
 * Redis Cluster (test/kit/local-cluster.ts) with the prefix in a hash tag: orders a minute against the bound, 429s.
 *
 *   npx tsx bench/scale-out.ts [--budget 1200] [--seconds 60] [--processes 3] [--latency 50]
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { startLocalCluster } from '../test/kit/local-cluster.js';
import { markdownTable, textTable } from './lib/tables.js';
import { runBudgeted, type BudgetedFigures } from './orders-throughput.js';

export interface ScaleOutOptions {
  /** POST budget a minute of the account (sandbox and client). Default 1 200 (bound: 300 orders a minute). */
  budgetPerMinute?: number;
  /** Length of each measurement, s. Default 60. */
  seconds?: number;
  /** Worker processes sharing the budget. Default 3. */
  processes?: number;
  /** Latency the sandbox adds to every answer, ms. Default 50. */
  latencyMs?: number;
  /** The single Redis. Default REDIS_URL, else 127.0.0.1:6379. */
  redisUrl?: string;
  log?: (line: string) => void;
}

export interface ScaleOutFigures {
  single: BudgetedFigures;
  cluster: BudgetedFigures;
}

export async function runScaleOut(o: ScaleOutOptions = {}): Promise<ScaleOutFigures> {
  const log = o.log ?? (() => undefined);
  const run = {
    budgetPerMinute: o.budgetPerMinute ?? 1_200,
    seconds: o.seconds ?? 60,
    processes: o.processes ?? 3,
    latencyMs: o.latencyMs ?? 50,
    budgetConcurrency: 4,
    log,
  };
  log(`scale-out: ${run.processes} worker processes on the single Redis`);
  const single = await runBudgeted({ ...run, redisUrl: o.redisUrl ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' });
  log('scale-out: starting a local three-node Redis Cluster');
  const cluster = await startLocalCluster();
  try {
    log(`scale-out: ${run.processes} worker processes on the cluster (seed ${cluster.nodes[0]!.port}; prefix in a hash tag)`);
    return { single, cluster: await runBudgeted({ ...run, redis: cluster.target }) };
  } finally {
    await cluster.stop();
  }
}

const HEAD = [
  'Redis',
  'worker processes',
  'POST budget/min',
  'latency ms',
  'bound orders/min',
  'orders/min',
  'of bound',
  '429s',
  'POSTs/order',
];

function rows(f: ScaleOutFigures): Array<Array<string | number>> {
  return (['single', 'cluster'] as const).map((k) => {
    const x = f[k];
    return [
      k === 'single' ? 'one server' : 'cluster, 3 masters',
      x.processes,
      x.budgetPerMinute,
      x.latencyMs,
      x.boundPerMinute,
      x.ordersPerMinute,
      `${Math.round(x.ratio * 1000) / 10}%`,
      x.rateLimited,
      x.postsPerOrder,
    ];
  });
}

/** The section of docs/benchmarks.md (bench/run.ts). */
export function scaleOutPart(f: ScaleOutFigures): { title: string; body: string[] } {
  const s = f.single;
  return {
    title: 'Scaling out: worker processes on one Redis and on a Redis Cluster',
    body: [
      `${s.processes} worker processes share one account's POST budget (in Redis: the budget state, 429 holds and key locks) against the sandbox with the same budget in fixed 1-minute windows and ${s.latencyMs} ms latency; ` +
        `first on the single Redis, then on a local three-node Redis Cluster (test/kit/local-cluster.ts) reached through one seed node, with the prefix in a hash tag. Each row measures ${s.seconds} s after the warm-up of bench/orders-throughput.ts.`,
      '',
      `Command: \`npx tsx bench/scale-out.ts --budget ${s.budgetPerMinute} --seconds ${s.seconds} --processes ${s.processes} --latency ${s.latencyMs}\``,
      '',
      markdownTable(HEAD, rows(f)),
      '',
      `Cluster / one server: **${(f.cluster.ordersPerMinute / Math.max(0.1, s.ordersPerMinute)).toFixed(2)}x** the orders a minute; the budget, not Redis, is the bound on both.`,
    ],
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: { budget: { type: 'string' }, seconds: { type: 'string' }, processes: { type: 'string' }, latency: { type: 'string' } },
    strict: true,
  });
  const num = (v: string | undefined) => (v === undefined ? undefined : Number(v));
  const f = await runScaleOut({
    budgetPerMinute: num(values.budget),
    seconds: num(values.seconds),
    processes: num(values.processes),
    latencyMs: num(values.latency),
    log: (l) => console.log(l),
  });
  console.log(`\n${textTable(HEAD, rows(f))}\n`);
  const part = scaleOutPart(f);
  console.log([`## 8. ${part.title}`, '', ...part.body].join('\n'));
  process.exit(0);
}
