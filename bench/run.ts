// `npm run bench`: runs every benchmark and writes docs/benchmarks.md (figures, medians, ratios, commands, machine).
// Sections: see bench/lib/bench-options.ts; each one's own command is printed beside its figures.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBaseline, type BaselineFigures } from './baseline-sequential.js';
import { runImportBench } from './import-ndjson.js';
import { measuredLine, renderBenchDoc, type Part } from './lib/bench-doc.js';
import { buildDist } from './lib/build-dist.js';
import { sharedSection, unbudgetedSection } from './lib/budget-sections.js';
import { sharedStartSection } from './lib/shared-start-section.js';
import { parseBenchArgs, type BenchOptions, type Section } from './lib/bench-options.js';
import { runOverheadBench } from './lib/job-overhead.js';
import { machine, machineLine } from './lib/machine.js';
import { markdownTable, textTable } from './lib/tables.js';
import { runBudgeted, type BudgetedFigures } from './orders-throughput.js';
import { runSandboxLoadBench } from './sandbox-load.js';
import { plannedFailoverPart, runPlannedFailover } from './planned-failover.js';
import { runRedisSizing } from './redis-sizing.js';
import { sizingReport } from './lib/sizing-report.js';
import { runScaleOut, scaleOutPart } from './scale-out.js';
import { benchStockSync, STOCK_BENCH_HEAD, stockBenchRows } from './stock-sync.js';
import { median } from './lib/median.js';
import { redisFullSection } from './lib/redis-full-section.js';
import { callHoldSection } from './lib/call-hold-section.js';
import { pushSection } from './lib/push-section.js';
import { accountsIdleSection } from './lib/accounts-sections.js';
import { accountsFairSection } from './lib/accounts-fair-section.js';
import { accountsPageSection } from './lib/accounts-page-section.js';
import { storePullSection } from './lib/store-section.js';
import { accountsStatusSection } from './lib/accounts-status-section.js';
import { logRedactionSection } from './lib/log-redaction-section.js';
import { metricsSection } from './lib/metrics-section.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const say = (line: string) => process.stdout.write(`${line}\n`);
const r1 = (n: number) => Math.round(n * 10) / 10;

type Rows = Array<Array<string | number>>;
/** What a section measured: its heading (without the number) and its Markdown. */
type Measured = Pick<Part, 'title' | 'body'>;

async function ordersSection(o: BenchOptions): Promise<Measured> {
  const rows: Rows = [];
  const ratios: number[] = [];
  const ofBound: number[] = [];
  for (const budget of o.budgets) {
    for (const latencyMs of o.latencies) {
      say(`orders: ${budget} POST/min, ${latencyMs} ms latency: ${o.processes} worker processes for ${o.seconds} s`);
      const w: BudgetedFigures = await runBudgeted({
        budgetPerMinute: budget,
        seconds: o.seconds,
        processes: o.processes,
        latencyMs,
        profile: o.profile,
        log: say,
      });
      say(`orders: the same through the sequential baseline for ${o.seconds} s`);
      const b: BaselineFigures = await runBaseline({ budgetPerMinute: budget, latencyMs, seconds: o.seconds, profile: o.profile });
      const ratio = w.ordersPerMinute / Math.max(0.1, b.ordersPerMinute);
      ratios.push(ratio);
      ofBound.push(w.ratio);
      rows.push([
        budget,
        latencyMs,
        w.boundPerMinute,
        w.ordersPerMinute,
        `${r1(w.ratio * 100)}%`,
        w.rateLimited,
        b.ordersPerMinute,
        `${r1((b.ordersPerMinute / b.boundPerMinute) * 100)}%`,
        `${ratio.toFixed(2)}x`,
      ]);
      say(textTable(['budget', 'latency', 'bound', 'workers', 'of bound', '429s', 'baseline', 'of bound', 'ratio'], rows.slice(-1)));
    }
  }
  return {
    title: 'Orders a minute against the bound, and against a sequential client',
    body: [
      `${o.processes} worker processes share the POST budget (in Redis) against the sandbox, whose budget is the same, in fixed 1-minute windows; the bound is budget / 4 (an order costs 4 POSTs). ` +
        `Each cell measures ${o.seconds} s after a warm-up that starts at the first completed order (bench/orders-throughput.ts). The baseline syncs the same kind of orders with the plain ServiceClient, one call after another, no queue, under the same budget and latency; the ratio is workers / baseline.`,
      '',
      `Commands: \`npx tsx bench/orders-throughput.ts --only budget --budget B --seconds ${o.seconds} --processes ${o.processes} --latency L\` and \`npx tsx bench/baseline-sequential.ts --budget B --latency L --seconds ${o.seconds}\``,
      '',
      markdownTable(
        [
          'POST budget/min',
          'latency ms',
          'bound orders/min',
          'workers orders/min',
          'workers of bound',
          'workers 429s',
          'baseline orders/min',
          'baseline of bound',
          'workers / baseline',
        ],
        rows,
      ),
      '',
      `Median over the cells: workers at **${r1(median(ofBound) * 100)}%** of the bound; workers / baseline **${median(ratios).toFixed(2)}x**. ` +
        'The sequential client keeps up while the four round trips of an order take less than the time the budget allows an order (60 s / bound); where they take longer it falls behind, and the ratio grows with the latency and the budget.',
    ],
  };
}

async function overheadSection(o: BenchOptions): Promise<Measured> {
  say('overhead: orders with no budget and no latency, one worker process');
  const f = await runOverheadBench({ orders: 3000, runs: o.runs, profile: o.profile, log: say });
  return {
    title: 'Per-job overhead (no budget, no latency)',
    body: [
      `One worker process (bench/orders-worker.ts: the real runner, order job and client, ${f.concurrency} jobs at once) against the sandbox in the bench process; ${f.orders} orders per run, each 4 POSTs. ` +
        'CPU is read from /proc for the worker process, and from the bench process for the sandbox, between the first job queued and the last order completed.',
      '',
      `Command: \`npm run bench -- --only overhead --runs ${o.runs}\``,
      '',
      markdownTable(
        ['run', 'orders/s', 'worker CPU ms/job', 'sandbox CPU ms/job'],
        f.runs.map((r, i) => [i + 1, r.ordersPerSecond, r.workerCpuMsPerJob ?? 'n/a', r.sandboxCpuMsPerJob]),
      ),
      '',
      `Median: **${f.medianOrdersPerSecond} orders/s**, **${f.medianWorkerCpuMsPerJob ?? 'n/a'} ms CPU a job** in the worker (${f.medianSandboxCpuMsPerJob} ms in the sandbox).`,
    ],
  };
}

async function stockSection(o: BenchOptions): Promise<Measured> {
  say('stock: the 50,000-line stock sync');
  const figures = await benchStockSync({ lines: 50_000, locations: 20, profile: o.profile });
  return {
    title: 'Stock sync: 50,000 count lines',
    body: [
      "20 counts of 2,500 lines (one per location), imported and synced by the stock-count job; the sandbox runs in a child process so the figures are the worker's own. See docs/stock-sync.md.",
      '',
      'Command: `npx tsx bench/stock-sync.ts`',
      '',
      markdownTable(STOCK_BENCH_HEAD, stockBenchRows(figures)),
    ],
  };
}

/** Compiles dist/ (what `npx inventory-sync` runs after npm run build); false when the build fails. */
const build = () => buildDist(root, (line) => say(`import: ${line}`));

async function importSection(o: BenchOptions): Promise<Measured> {
  say('import: a 100,000-record NDJSON file through `inventory-sync import` (building dist/ first)');
  const dist = o.tsx ? false : build();
  const f = await runImportBench({ records: 100_000, runs: o.runs, dist, log: say });
  return {
    title: 'Importing a 100,000-record NDJSON file',
    body: [
      `The real CLI queues every record of a ${f.fileMb} MB file of orders (no processing): ${f.command}. It checks each record, gives it its job id, ` +
        'leaves out those already queued, and writes the rest as intake batches of 1,000 (docs/architecture.md, "Imports"). Seconds are the whole process, start-up included; ' +
        "peak memory is the process's VmHWM from /proc. Each run then fans the batches out into one BullMQ job per record, as a worker does (the same `expandBatch`, one batch at a time), and times it.",
      '',
      `Command: \`npm run build && npx tsx bench/import-ndjson.ts --records 100000 --runs ${o.runs}${dist ? ' --dist' : ' --tsx'}\``,
      '',
      markdownTable(
        ['run', 'import s', 'records/s', 'peak MB', 'batches', 'fan-out s', 'fan-out records/s', 'import / fan-out'],
        f.runs.map((r, i) => [
          i + 1,
          r.seconds,
          r.recordsPerSecond,
          r.peakMb ?? 'n/a',
          r.batches,
          r.fanOutSeconds,
          r.fanOutRecordsPerSecond,
          r.ratio,
        ]),
      ),
      '',
      `Median **${f.medianRecordsPerSecond.toLocaleString('en')} records/s** (target at least 20,000): ${f.medianRecordsPerSecond >= 20_000 ? 'met' : 'NOT met'}. ` +
        `Peak memory **${f.maxPeakMb ?? 'n/a'} MB** (target under 256 MB): ${f.maxPeakMb !== null && f.maxPeakMb < 256 ? 'met' : 'NOT met'}.`,
      '',
      `The fan-out, which is what adding one job per record costs (BullMQ's add script and packing, about 0.1 ms of CPU a job here), runs at a median of ` +
        `**${f.medianFanOutRecordsPerSecond.toLocaleString('en')} records/s**; the import is **${f.medianRatio}×** that (median of the per-run ratios). ` +
        'An import that added one job per record could not go faster than the fan-out; the workers do it in the background, far faster than the service budget lets records be synced.',
    ],
  };
}

async function sandboxSection(o: BenchOptions): Promise<Measured> {
  say('sandbox: requests a second under load');
  const f = await runSandboxLoadBench({ seconds: 10, connections: 50, profile: o.profile });
  return {
    title: 'The sandbox under load (context for the figures above)',
    body: [
      'The sandbox alone in a child process, loaded by autocannon (50 connections, 10 s per scenario).',
      '',
      'Command: `npx tsx bench/sandbox-load.ts 10 50`',
      '',
      markdownTable(
        ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors'],
        f.map((x) => [x.scenario, x.reqPerSec, x.p50Ms, x.p99Ms, x.non2xx, x.errors]),
      ),
    ],
  };
}

async function totalSection(o: BenchOptions): Promise<Measured> {
  const rows: Rows = [];
  const ofBound: number[] = [];
  let rateLimited = 0;
  for (const total of o.totals) {
    for (const latencyMs of o.latencies) {
      say(
        `total: ${total} requests/min, the account's only limit, ${latencyMs} ms latency: ${o.processes} worker processes for ${o.seconds} s`,
      );
      const w = await runBudgeted({
        budgetKind: 'total',
        budgetPerMinute: total,
        seconds: o.seconds,
        processes: o.processes,
        latencyMs,
        profile: o.profile,
        log: say,
      });
      ofBound.push(w.ratio);
      rateLimited += w.rateLimited;
      rows.push([
        total,
        latencyMs,
        w.boundPerMinute,
        w.ordersPerMinute,
        `${r1(w.ratio * 100)}%`,
        w.rateLimited,
        w.postsPerOrder,
        w.getsPerOrder,
      ]);
      say(textTable(['total', 'latency', 'bound', 'orders/min', 'of bound', '429s', 'POSTs/order', 'GETs/order'], rows.slice(-1)));
    }
  }
  const met = median(ofBound) >= 0.95 && rateLimited === 0;
  return {
    title: 'Orders a minute under one total budget (INVENTORY_REQUESTS_PER_MINUTE)',
    body: [
      'The account\'s only limit is one total of requests a minute that every request spends (docs/service.md "Budgets": some accounts have only this one): ' +
        `the sandbox counts every API request against it in fixed 1-minute windows and has no other budget; ${o.processes} worker processes share \`INVENTORY_REQUESTS_PER_MINUTE\` = the total through Redis. ` +
        "The client's per-class budgets (POST, GET a minute) are set to the total: the account has none, and at the total they never bind before it (collection GETs keep their 300 an hour; the catalog is warm, so there are none). " +
        `The bound is total / 4 (an order is 4 POSTs and no GET). Each cell measures ${o.seconds} s after a warm-up that starts at the first completed order (bench/orders-throughput.ts, \`runBudgeted\` with \`budgetKind: 'total'\`).`,
      '',
      `Commands: \`npm run bench -- --only total --totals T --latencies L --seconds ${o.seconds} --processes ${o.processes}\`, or one cell: \`npx tsx bench/orders-throughput.ts --only total --budget T --seconds ${o.seconds} --processes ${o.processes} --latency L\``,
      '',
      markdownTable(
        ['total requests/min', 'latency ms', 'bound orders/min', 'orders/min', 'of bound', '429s', 'POSTs an order', 'GETs an order'],
        rows,
      ),
      '',
      `Median over the cells: **${r1(median(ofBound) * 100)}%** of the bound, **${rateLimited}** 429s in all (target at least 95%, no 429): ${met ? 'met' : 'NOT met'}.`,
    ],
  };
}

async function redisSection(): Promise<Measured> {
  say('redis: Redis kept per synced order, count and BOM, at steady state and after the retention periods');
  const f = await runRedisSizing({ records: 2_000, log: say });
  const body = sizingReport(f, 'npm run bench -- --only redis');
  say(body.join('\n'));
  return { title: 'Redis kept per synced record', body };
}

const runners: Record<Section, (o: BenchOptions) => Promise<Measured>> = {
  total: totalSection,
  import: importSection,
  overhead: overheadSection,
  stock: stockSection,
  sandbox: sandboxSection,
  orders: ordersSection,
  'scale-out': async (o) => scaleOutPart(await runScaleOut({ seconds: o.seconds, processes: o.processes, log: say })),
  redis: redisSection,
  shared: (o) => sharedSection(o, say),
  'shared-start': (o) => sharedStartSection(o, say),
  unbudgeted: (o) => unbudgetedSection(o, say),
  failover: async (o) =>
    plannedFailoverPart(await runPlannedFailover({ runs: o.runs, log: say }), `npm run bench -- --only failover --runs ${o.runs}`),
  'redis-full': (o) => redisFullSection(o, say),
  'call-hold': (o) => callHoldSection(o, say),
  push: (o) => pushSection(o, say),
  'accounts-idle': (o) => accountsIdleSection(o, false, say),
  'accounts-idle-cluster': (o) => accountsIdleSection(o, true, say),
  'accounts-fair': (o) => accountsFairSection(o, false, say),
  'accounts-fair-cluster': (o) => accountsFairSection(o, true, say),
  store: (o) => storePullSection(o, say),
  'accounts-status': (o) => accountsStatusSection(o, say),
  'log-redaction': (o) => logRedactionSection(o, say),
  'accounts-page': (o) => accountsPageSection(o, say),
  metrics: (o) => metricsSection(o, say),
};

const argv = process.argv.slice(2);
const options = parseBenchArgs(argv);
const command = `npm run bench${argv.length ? ` -- ${argv.join(' ')}` : ''}`;
const parts: Part[] = [];
for (const section of (
  [
    'import',
    'overhead',
    'stock',
    'sandbox',
    'orders',
    'total',
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
  ] as const
).filter((s) => options.only.includes(s))) {
  const m = machineLine(machine());
  const started = Date.now();
  let measured: Measured;
  try {
    measured = await runners[section](options);
  } catch (err) {
    say(`${section}: failed: ${(err as Error).stack ?? String(err)}`);
    measured = { title: `${section}: not measured`, body: [`The benchmark failed: \`${(err as Error).message}\``] };
  }
  parts.push({
    section,
    ...measured,
    measured: measuredLine({ command, minutes: Math.round((Date.now() - started) / 60_000), profile: options.profile, machine: m }),
  });
}
// A run of some sections keeps the others of the report as they were.
const out = resolve(root, options.out);
writeFileSync(out, renderBenchDoc(parts, existsSync(out) ? readFileSync(out, 'utf8') : undefined));
say(`\nwritten: ${options.out}`);
process.exit(0);
