/**
 * Order ingestion throughput, sandbox and Redis included (docs/orders.md "Benchmark").
 *
 * 1. Budgeted: a POST budget on the sandbox (fixed 1-minute windows, like the service) and the same budget on
 *    the client, shared by several worker processes: orders a minute against the bound (budget / 4 POSTs), 429s.
 *    `--only total`: the same with one total budget instead, the account's only limit (every request spends it;
 *    the client's INVENTORY_REQUESTS_PER_MINUTE); the bound is total / 4.
 * 2. Unbounded: no budget, no latency: orders a second (each order is 4 API calls), median of several runs.
 *
 *   npx tsx bench/orders-throughput.ts [--budget 1200] [--seconds 60] [--processes 3] [--latency 0]
 *        [--orders 3000] [--runs 3] [--fast-processes 1] [--concurrency 64] [--auto-pipelining]
 *        [--only budget|total|fast] [--profile observed|spec]
 */
import type { ChildProcess } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { parseProfile } from '../src/sandbox/profile-rules.js';
import type { SandboxProfile } from '../src/sandbox/sandbox-options.js';
import type { RedisTarget } from '../src/redis/connection.js';
import { startSandbox, type Sandbox } from '../src/sandbox/sandbox.js';
import { ownCpuMs, processCpuMs } from './lib/proc-cpu.js';
import { records, redisCpuMs, setUp, spawnWorker, stopWorker } from './orders-bench-world.js';
import { startOrderWorkers, type RunningWorkers } from '../test/kit/order-workers.js';
import { median } from './lib/median.js';

/**
 * Which limit the account of a budgeted run has: `post`, a POST budget (and as much GET); `total`, one budget
 * for every request together and nothing else (docs/service.md, "Budgets").
 */
export type BudgetKind = 'post' | 'total';

export interface OrdersBenchOptions {
  /** Requests a minute of the budgeted run's limit (sandbox and client). Default 1 200. */
  budgetPerMinute?: number;
  /** The budgeted run's limit. Default 'post'. */
  budgetKind?: BudgetKind;
  /** Length of the budgeted measurement, s. Default 60. */
  seconds?: number;
  /** Latency the sandbox adds to every answer in the budgeted run, ms. Default 0. */
  latencyMs?: number;
  /** Jobs at once per worker process in the budgeted run. Default 4. */
  budgetConcurrency?: number;
  /** Worker processes sharing the budget. Default 3. */
  processes?: number;
  /** Orders per unbounded run. Default 3 000. */
  orders?: number;
  /** Unbounded runs (median reported). Default 3. */
  runs?: number;
  /** Worker processes of the unbounded runs; 0 runs the workers in this process, beside the sandbox. Default 1. */
  fastProcesses?: number;
  /** Jobs at once per worker process in the unbounded runs. Default 64. */
  concurrency?: number;
  /** ioredis auto-pipelining on the workers' job connection. Default false (as buildDeps). */
  autoPipelining?: boolean;
  /** One measurement: the budgeted run (`total`: with budgetKind 'total'), or the unbounded one. */
  only?: 'budget' | 'total' | 'fast';
  /** How the sandbox answers. Default: sandboxDefaults.profile. */
  profile?: SandboxProfile;
  redisUrl?: string;
  /** A Redis Cluster (its seed nodes) instead of redisUrl, for the budgeted run (bench/scale-out.ts). */
  redis?: RedisTarget;
  log?: (line: string) => void;
}

export interface BudgetedFigures {
  budgetKind: BudgetKind;
  budgetPerMinute: number;
  latencyMs: number;
  processes: number;
  seconds: number;
  /** Orders completed a minute during the measurement (after the first completion). */
  ordersPerMinute: number;
  /** budget / 4: an order is 4 POSTs (and no GET), whichever limit they spend. */
  boundPerMinute: number;
  ratio: number;
  rateLimited: number;
  getsPerOrder: number;
  postsPerOrder: number;
}

export interface FastFigures {
  orders: number;
  processes: number;
  concurrency: number;
  autoPipelining: boolean;
  runs: number[];
  /** CPU ms per order in the last run, by part: this process (the sandbox, and the workers when processes = 0), the worker processes, Redis. */
  cpuMsPerOrder: { sandboxProcess: number; workers: number; redis: number };
  medianOrdersPerSecond: number;
  medianCallsPerSecond: number;
  getsPerOrder: number;
}

export interface OrdersBenchFigures {
  budgeted?: BudgetedFigures;
  fast?: FastFigures;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;
/** Time after the first completed order before the budgeted measurement starts: the pipeline fills. */
const WARM_UP_MS = 5_000;

/** Completed orders so far: each costs one POST to its actionUrlComplete. */
const completions = (sandbox: Sandbox) => sandbox.admin.counters().actions;

/**
 * The sandbox's budgets and the client's for a budgeted run. An account with only a total has no per-class
 * limit, but the client always has per-class budgets (INVENTORY_POST_PER_MINUTE, ...): they are set to the
 * total, where they never bind before it (docs/orders.md "Benchmark"). Collection GETs keep their hourly budget.
 */
function budgetsOf(kind: BudgetKind, perMinute: number) {
  const window = { limit: perMinute, windowMs: 60_000 };
  const client = { postPerMinute: perMinute, getPerMinute: perMinute };
  return kind === 'total'
    ? { sandbox: { total: window }, client: { ...client, requestsPerMinute: perMinute } }
    : { sandbox: { post: window }, client };
}

export async function runBudgeted(o: OrdersBenchOptions = {}): Promise<BudgetedFigures> {
  const budget = o.budgetPerMinute ?? 1_200;
  const kind = o.budgetKind ?? 'post';
  const budgets = budgetsOf(kind, budget);
  const seconds = o.seconds ?? 60;
  const processes = o.processes ?? 3;
  const log = o.log ?? (() => undefined);
  const latency = o.latencyMs ? { ms: o.latencyMs, jitterMs: Math.round(o.latencyMs / 5) } : null;
  const sandbox = await startSandbox({ data: 'demo', profile: o.profile, latency, budgets: budgets.sandbox });
  const world = await setUp(sandbox, o.redis ?? o.redisUrl ?? 'redis://127.0.0.1:6379', 'budget');
  const children: ChildProcess[] = [];
  try {
    const bound = budget / 4;
    await world.add(records(`BUDGET-${Date.now()}`, Math.ceil((bound * (seconds + 30)) / 60) + 50));
    // The budget is the bottleneck: a few jobs per process keep it busy; more only deepen the pipeline.
    const settings = world.settings({ budget: budgets.client, concurrency: o.budgetConcurrency ?? 4 });
    for (let i = 0; i < processes; i++) children.push(await spawnWorker(settings));
    while (completions(sandbox) === 0) await sleep(20);
    await sleep(WARM_UP_MS);
    const c0 = sandbox.admin.counters();
    log(
      `  budgeted (${kind} ${budget}/min): ${processes} processes running; measuring ${seconds} s from ${WARM_UP_MS / 1000} s after the first completed order`,
    );
    await sleep(seconds * 1_000);
    const c1 = sandbox.admin.counters();
    const done = c1.actions - c0.actions;
    const ordersPerMinute = (done / seconds) * 60;
    return {
      budgetKind: kind,
      budgetPerMinute: budget,
      latencyMs: o.latencyMs ?? 0,
      processes,
      seconds,
      ordersPerMinute: round(ordersPerMinute),
      boundPerMinute: bound,
      ratio: round(ordersPerMinute / bound, 3),
      rateLimited: c1.rateLimited,
      postsPerOrder: round((c1.byClass.post - c0.byClass.post) / Math.max(1, done), 2),
      getsPerOrder: round((c1.byClass.get - c1.byClass.collection) / Math.max(1, c1.actions), 2),
    };
  } finally {
    await Promise.all(children.map(stopWorker));
    await world.tearDown();
    await sandbox.close();
  }
}

interface FastRun {
  perSecond: number;
  getsPerOrder: number;
  cpuMsPerOrder: FastFigures['cpuMsPerOrder'];
}

async function fastRun(o: OrdersBenchOptions, run: number): Promise<FastRun> {
  const n = o.orders ?? 3_000;
  const processes = o.fastProcesses ?? 1;
  const concurrency = o.concurrency ?? 64;
  const sandbox = await startSandbox({ data: 'demo', profile: o.profile });
  const world = await setUp(sandbox, o.redisUrl ?? 'redis://127.0.0.1:6379', `fast${run}`);
  const children: ChildProcess[] = [];
  let inProcess: RunningWorkers | undefined;
  try {
    const settings = world.settings({ concurrency, autoPipelining: o.autoPipelining ?? false });
    if (processes === 0) inProcess = await startOrderWorkers(settings);
    for (let i = 0; i < processes; i++) children.push(await spawnWorker(settings));
    const before = sandbox.admin.counters();
    const redis0 = await redisCpuMs(world.redis);
    const own0 = ownCpuMs();
    const workers0 = children.map((c) => processCpuMs(c.pid!) ?? 0);
    const t0 = performance.now();
    await world.add(records(`FAST-${run}-${Date.now()}`, n));
    while (completions(sandbox) - before.actions < n) await sleep(10);
    const s = (performance.now() - t0) / 1_000;
    const ownMs = ownCpuMs() - own0;
    const workerMs = children.reduce((sum, c, i) => sum + (processCpuMs(c.pid!) ?? 0) - workers0[i]!, 0);
    const redisMs = (await redisCpuMs(world.redis)) - redis0;
    const after = sandbox.admin.counters();
    return {
      perSecond: n / s,
      getsPerOrder: (after.byClass.get - after.byClass.collection - before.byClass.get + before.byClass.collection) / n,
      cpuMsPerOrder: { sandboxProcess: round(ownMs / n, 2), workers: round(workerMs / n, 2), redis: round(redisMs / n, 2) },
    };
  } finally {
    await inProcess?.close();
    await Promise.all(children.map(stopWorker));
    await world.tearDown();
    await sandbox.close();
  }
}

export async function runFast(o: OrdersBenchOptions = {}): Promise<FastFigures> {
  const runs: number[] = [];
  let gets = 0;
  let cpu: FastFigures['cpuMsPerOrder'] = { sandboxProcess: 0, workers: 0, redis: 0 };
  for (let i = 0; i < (o.runs ?? 3); i++) {
    const r = await fastRun(o, i);
    cpu = r.cpuMsPerOrder;
    runs.push(round(r.perSecond));
    gets = Math.max(gets, r.getsPerOrder);
    o.log?.(`  unbounded run ${i + 1}: ${round(r.perSecond)} orders/s`);
  }
  const med = median(runs);
  return {
    orders: o.orders ?? 3_000,
    processes: o.fastProcesses ?? 1,
    concurrency: o.concurrency ?? 64,
    autoPipelining: o.autoPipelining ?? false,
    runs,
    cpuMsPerOrder: cpu,
    medianOrdersPerSecond: med,
    medianCallsPerSecond: round(med * 4),
    getsPerOrder: round(gets, 3),
  };
}

/** Both measurements; what `npm run bench` calls. */
export async function runOrdersBench(o: OrdersBenchOptions = {}): Promise<OrdersBenchFigures> {
  const out: OrdersBenchFigures = {};
  if (o.only === undefined || o.only === 'fast') out.fast = await runFast(o);
  if (o.only !== 'fast') out.budgeted = await runBudgeted(o.only === 'total' ? { ...o, budgetKind: 'total' } : o);
  return out;
}

export function describeOrdersBench(f: OrdersBenchFigures): string[] {
  const lines: string[] = [];
  if (f.budgeted) {
    const b = f.budgeted;
    lines.push(
      `orders, budgeted: ${b.ordersPerMinute} orders/min with ${b.budgetPerMinute} ${b.budgetKind === 'total' ? 'requests/min in total (the only limit)' : 'POST/min'} shared by ${b.processes} processes, ${b.latencyMs} ms latency; bound ${b.boundPerMinute}/min; ratio ${(b.ratio * 100).toFixed(1)}% (target >= 95%); 429s: ${b.rateLimited} (target 0); ${b.postsPerOrder} POSTs and ${b.getsPerOrder} GETs per order`,
    );
  }
  if (f.fast) {
    const x = f.fast;
    lines.push(
      `orders, unbounded: median ${x.medianOrdersPerSecond} orders/s (${x.medianCallsPerSecond} API calls/s; target >= 250 orders/s) over runs ${x.runs.join(', ')}; ${x.orders} orders, ${x.processes === 0 ? 'workers in the sandbox process' : `${x.processes} worker process(es)`} x ${x.concurrency} jobs${x.autoPipelining ? ', Redis auto-pipelining' : ''}; ${x.getsPerOrder} GETs per order; CPU ms per order: sandbox process ${x.cpuMsPerOrder.sandboxProcess}, worker processes ${x.cpuMsPerOrder.workers}, Redis ${x.cpuMsPerOrder.redis}`,
    );
  }
  return lines;
}

function parseArgs(argv: string[]): OrdersBenchOptions {
  const o: OrdersBenchOptions = { log: (l) => console.log(l) };
  const num = (i: number) => Number(argv[i + 1]);
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i];
    if (flag === '--auto-pipelining') {
      o.autoPipelining = true;
      i--;
    } else if (flag === '--budget') o.budgetPerMinute = num(i);
    else if (flag === '--seconds') o.seconds = num(i);
    else if (flag === '--processes') o.processes = num(i);
    else if (flag === '--latency') o.latencyMs = num(i);
    else if (flag === '--orders') o.orders = num(i);
    else if (flag === '--runs') o.runs = num(i);
    else if (flag === '--fast-processes') o.fastProcesses = num(i);
    else if (flag === '--concurrency') o.concurrency = num(i);
    else if (flag === '--only') o.only = argv[i + 1] as OrdersBenchOptions['only'];
    else if (flag === '--redis') o.redisUrl = argv[i + 1];
    else if (flag === '--profile') o.profile = parseProfile(argv[i + 1] ?? '');
    else throw new Error(`unknown option ${flag}`);
  }
  return o;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const figures = await runOrdersBench(parseArgs(process.argv.slice(2)));
  for (const line of describeOrdersBench(figures)) console.log(line);
  console.log(JSON.stringify(figures));
}
