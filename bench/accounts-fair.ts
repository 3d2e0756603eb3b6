/**
 * Many accounts in one deployment, working (issue 36). Every account has its own sandbox (its own budget) and its
 * own feed server; one ACCOUNTS_FILE names them all; `workers` worker processes (the real CLI, dist/) serve them.
 *
 * Every sandbox has a POST budget in fixed 1-minute windows (the account's INVENTORY_POST_PER_MINUTE the same); the
 * feeds are polled every second (ORDER_POLL_SECONDS=1).
 *
 * - `budget`: `accounts` accounts at `budget` POST a minute, each with more orders in its feed than it can sync: over
 *   the whole budget windows of `seconds` from the first to start after every account's first order, the POSTs each
 *   sandbox took into its budget a minute / 4 (an order is 4 POSTs) and the orders each completed a minute, against
 *   the bound (budget / 4).
 * - `backfill`: `live` accounts at `budget` whose orders arrive one by one (`live-rate` a minute each, half their bound
 *   by default), beside one account at `backfill-budget` (the most a busy account might have, by default, so that its
 *   backlog weighs on the workers). In one run: `live-seconds` of live orders alone; then the backfill account's
 *   `backfill` orders queued at once (`inventory-sync import --account backfill`) and worked at its budget while the
 *   live orders go on for `live-seconds` more. Each live order timed from its append to its feed to its job's
 *   completion: p50 and p99 alone and beside the backlog.
 *
 *   npx tsx bench/accounts-fair.ts [--part budget|backfill|both] [--accounts 50] [--budget 120] [--seconds 120]
 *     [--live 10] [--live-rate BUDGET/8] [--live-seconds 120] [--backfill 20000] [--backfill-budget 6000]
 *     [--latency 20] [--workers 1] [--cluster]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Queue } from 'bullmq';
import { Cluster, Redis } from 'ioredis';
import { accountPrefix } from '../config/accounts.js';
import { startFeedServer, type FeedServer } from '../src/feed/feed-server.js';
import { startRedisServer, type RedisServer } from '../src/redis/embedded-server.js';
import { startSandbox, type Sandbox } from '../src/sandbox/sandbox.js';
import { STREAMS } from '../jobs/kinds.js';
import { buildDist } from './lib/build-dist.js';
import { spawnCli, type CliProcess } from './lib/cli-process.js';
import { benchOrders, type BenchOrder } from './lib/order-records.js';
import {
  BUDGET_WINDOW_MS,
  paceLine,
  summarizePaces,
  untilWindowStart,
  windowedPace,
  windowsOf,
  type PaceSummary,
  type WindowedPace,
} from './lib/budget-windows.js';
import { percentile } from './lib/push-signing.js';
import { finishedTimes, type LatencyFigures } from './push-latency.js';
import { startLocalCluster, type LocalCluster } from '../test/kit/local-cluster.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const TOKEN = 'bench-token';
const BASE = 'fair';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;

interface Account {
  name: string;
  sandbox: Sandbox;
  feed: FeedServer;
  queue: Queue;
}

/** A Redis for the run (a private server, or a local cluster of three masters) and how the workers reach it. */
export interface RunRedis {
  env: Record<string, string>;
  connection: Redis | Cluster;
  stop(): Promise<void>;
}

export async function runRedis(cluster: boolean): Promise<RunRedis> {
  if (cluster) {
    const c: LocalCluster = await startLocalCluster();
    const connection = new Cluster(c.nodes.map((n) => ({ host: n.host, port: n.port })));
    return {
      env: { REDIS_CLUSTER_NODES: c.nodes.map((n) => `${n.host}:${n.port}`).join(',') },
      connection,
      stop: async () => {
        connection.disconnect();
        await c.stop();
      },
    };
  }
  const s: RedisServer = await startRedisServer();
  const connection = new Redis(s.url, { maxRetriesPerRequest: null });
  return {
    env: { REDIS_URL: s.url },
    connection,
    stop: async () => {
      connection.disconnect();
      await s.stop();
    },
  };
}

interface World {
  accounts: Account[];
  /** What every CLI process of the run gets (Redis, prefix, the accounts file, the feed token). */
  env: Record<string, string>;
  dist: boolean;
  workers: CliProcess[];
  dir: string;
  /** Stops everything; the logs' folder is kept when `keepLogs`. */
  close(keepLogs?: boolean): Promise<void>;
}

/** dist/ compiled once a run of this program (what `npx inventory-sync` runs). */
let built: boolean | undefined;

/** dist/ built once a run of this program; answers whether the CLI runs from it. */
export function distOnce(log: (s: string) => void): boolean {
  built ??= buildDist(ROOT, log);
  return built;
}

/**
 * The accounts' sandboxes and feeds, the file, and the worker processes, started. Each account's sandbox has a POST
 * budget of `budgetOf(name)` a minute in fixed 1-minute windows, and the account's INVENTORY_POST_PER_MINUTE is the same.
 */
async function startWorld(
  o: {
    names: string[];
    budgetOf: (name: string) => number;
    workers: number;
    latencyMs: number;
    feedOf?: (name: string) => BenchOrder[];
    log: (s: string) => void;
  },
  redis: RunRedis,
): Promise<World> {
  const dir = mkdtempSync(join(tmpdir(), 'isync-accounts-fair-'));
  const dist = distOnce(o.log);
  const accounts: Account[] = [];
  for (const name of o.names) {
    const sandbox = await startSandbox({
      data: 'demo',
      budgets: { post: { limit: o.budgetOf(name), windowMs: 60_000 } },
      latency: { ms: o.latencyMs },
    });
    const feed = await startFeedServer({ port: 0, names: STREAMS, streams: { orders: o.feedOf?.(name) ?? [] }, token: TOKEN });
    const queue = new Queue('orders', { connection: redis.connection, prefix: accountPrefix(BASE, name) });
    accounts.push({ name, sandbox, feed, queue });
  }
  const file = join(dir, 'accounts.json');
  const entries = accounts.map((a) => [
    a.name,
    {
      INVENTORY_BASE_URL: a.sandbox.url,
      INVENTORY_ACCOUNT: a.sandbox.account,
      INVENTORY_API_KEY: a.sandbox.key,
      INVENTORY_API_SECRET: a.sandbox.secret,
      INVENTORY_POST_PER_MINUTE: o.budgetOf(a.name),
      UPSTREAM_URL: a.feed.url,
    },
  ]);
  writeFileSync(file, JSON.stringify({ accounts: Object.fromEntries(entries) }));
  const env = {
    ...redis.env,
    QUEUE_PREFIX: BASE,
    ACCOUNTS_FILE: file,
    UPSTREAM_TOKEN: TOKEN,
    ORDER_POLL_SECONDS: '1',
    WORKER_HTTP_PORT: '0',
    LOG_LEVEL: 'warn',
  };
  const workers: CliProcess[] = [];
  for (let w = 0; w < o.workers; w++)
    workers.push(
      spawnCli({ root: ROOT, name: `worker-${w}`, args: ['worker'], env, logFile: join(dir, `worker-${w}.log`), useDist: dist }),
    );
  return {
    accounts,
    env,
    dist,
    workers,
    dir,
    async close(keepLogs = false) {
      await Promise.all(workers.map((p) => p.stop(15_000)));
      for (const a of accounts) {
        await a.queue.close();
        await a.feed.close();
        await a.sandbox.close();
      }
      if (keepLogs) o.log(`accounts-fair: the workers' logs are kept in ${dir}`);
      else rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Waits until every one of `accounts` has completed `n` orders (its first: the catalog read, its window started). */
async function completedEach(world: World, accounts: Account[], n: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const a of accounts)
    while ((await a.queue.getJobCountByTypes('completed')) < n) {
      if (Date.now() > deadline)
        throw new Error(`account ${a.name} did not complete ${n} orders in ${timeoutMs / 1000} s: see ${world.dir}`);
      if (world.workers.some((w) => !w.alive())) throw new Error(`a worker process ended early: see ${world.dir}`);
      await sleep(250);
    }
}

export interface BudgetFigures extends PaceSummary {
  accounts: number;
  workers: number;
  budget: number;
  bound: number;
  /** Seconds counted: whole budget windows. */
  seconds: number;
  /** The lowest account's POSTs taken a minute / 4, of the bound. */
  worstOfBound: number;
}

/** Every account at its budget: orders a minute each, against budget / 4. */
export async function runBudgetPart(o: {
  accounts: number;
  budget: number;
  seconds: number;
  workers: number;
  cluster: boolean;
  log: (s: string) => void;
}): Promise<BudgetFigures> {
  const redis = await runRedis(o.cluster);
  const bound = o.budget / 4;
  const names = Array.from({ length: o.accounts }, (_, i) => `b${String(i).padStart(3, '0')}`);
  // More than each can sync in the run: its feed is never empty.
  const perAccount = Math.ceil((bound * (o.seconds + 240)) / 60);
  o.log(`accounts-fair budget: ${o.accounts} accounts at ${o.budget} POST/min each, ${o.workers} worker process(es)`);
  const world = await startWorld(
    { names, budgetOf: () => o.budget, workers: o.workers, latencyMs: 0, feedOf: (n) => benchOrders(`B-${n}`, perAccount), log: o.log },
    redis,
  );
  let failed = true;
  try {
    // Measured over whole budget windows, from the first to start once every account has completed an order (its
    // catalog read, its first window started): the bound holds per window (bench/lib/budget-windows.ts).
    await completedEach(world, world.accounts, 1, 180_000);
    const windows = windowsOf(o.seconds);
    const start = await untilWindowStart();
    o.log(`accounts-fair budget: every account started; measuring ${windows} whole budget windows`);
    const paces: WindowedPace[] = [];
    for (const a of world.accounts) paces.push(await windowedPace(redis.connection, a.sandbox, a.queue, start, windows));
    o.log(`accounts-fair budget: per account and window, orders completed and POSTs taken: ${paceLine(paces)}`);
    const summary = summarizePaces(paces, bound);
    failed = false;
    return {
      accounts: o.accounts,
      workers: o.workers,
      budget: o.budget,
      bound,
      seconds: (windows * BUDGET_WINDOW_MS) / 1000,
      ...summary,
      worstOfBound: round(summary.lowest / bound, 3),
    };
  } finally {
    await world.close(failed);
    await redis.stop();
  }
}

export interface BackfillFigures {
  live: number;
  budget: number;
  /** Live orders a minute each live account got. */
  liveRate: number;
  backfill: number;
  backfillBudget: number;
  seconds: number;
  alone: LatencyFigures;
  beside: LatencyFigures;
  /** besideP99 − aloneP99 (target: at most 1,000 ms). */
  p99DeltaMs: number;
  p50Ratio: number;
  p99Ratio: number;
  /** Seconds `inventory-sync import` took to queue the backlog. */
  importSeconds: number;
  /** Backfill orders a minute the backlogged account completed during the live phase beside it, and its bound. */
  backfillPerMinute: number;
  backfillBound: number;
  /** Backfill orders not yet completed at the end: the backlog was still being worked. */
  backlogLeft: number;
}

function latencyOf(ms: number[], missing: number): LatencyFigures {
  const sorted = [...ms].sort((a, b) => a - b);
  return {
    orders: sorted.length,
    p50Ms: Math.round(percentile(sorted, 50)),
    p99Ms: Math.round(percentile(sorted, 99)),
    maxMs: Math.round(sorted.at(-1) ?? 0),
    missing,
  };
}

/**
 * `seconds` of live orders: each live account gets one every 60 / `rate` s, the accounts' turns spread over that
 * interval; each timed from its append to the feed to its job's completion (finishedOn).
 */
async function livePhase(world: World, live: Account[], o: { tag: string; rate: number; seconds: number }): Promise<LatencyFigures> {
  const everyMs = 60_000 / o.rate;
  const turns: Array<{ at: number; account: Account; i: number }> = [];
  for (let i = 0; i * everyMs < o.seconds * 1000; i++)
    live.forEach((account, j) => turns.push({ at: i * everyMs + (j * everyMs) / live.length, account, i }));
  turns.sort((a, b) => a.at - b.at);
  const arrived = new Map<string, { account: Account; at: number }>();
  const started = Date.now();
  for (const t of turns) {
    await sleep(Math.max(0, started + t.at - Date.now()));
    const [order] = benchOrders(`L-${o.tag}-${t.account.name}-${t.i}`, 1);
    t.account.feed.append('orders', [order]);
    arrived.set(order!.orderId, { account: t.account, at: Date.now() });
  }
  const until = Date.now() + 60_000;
  const finished = new Map<string, number>();
  while (Date.now() < until) {
    for (const a of live) for (const [id, t] of await finishedTimes(a.queue)) finished.set(id, t);
    if ([...arrived.keys()].every((id) => finished.has(id))) break;
    await sleep(500);
  }
  const ms = [...arrived].filter(([id]) => finished.has(id)).map(([id, v]) => finished.get(id)! - v.at);
  return latencyOf(ms, arrived.size - ms.length);
}

/**
 * One run, one worker deployment: `live` accounts and one backfill account. First `seconds` of live orders alone
 * (the backfill account idle); then the backfill account's `backfill` orders queued at once (`inventory-sync import
 * orders FILE --account backfill`, the real CLI) and worked at its own budget, and `seconds` of live orders again
 * beside it.
 */
export async function runBackfillPart(o: {
  live: number;
  backfill: number;
  budget: number;
  backfillBudget: number;
  liveRate: number;
  seconds: number;
  latencyMs: number;
  workers: number;
  cluster: boolean;
  log: (s: string) => void;
}): Promise<BackfillFigures> {
  const redis = await runRedis(o.cluster);
  const names = [...Array.from({ length: o.live }, (_, i) => `l${String(i).padStart(3, '0')}`), 'backfill'];
  o.log(
    `accounts-fair backfill: ${o.live} live accounts at ${o.budget} POST/min (an order each every ${round(60 / o.liveRate)} s) ` +
      `and one backfill account at ${o.backfillBudget} POST/min, ${o.latencyMs} ms latency, ${o.workers} worker process(es)`,
  );
  const world = await startWorld(
    {
      names,
      budgetOf: (n) => (n === 'backfill' ? o.backfillBudget : o.budget),
      workers: o.workers,
      latencyMs: o.latencyMs,
      log: o.log,
    },
    redis,
  );
  let failed = true;
  try {
    const live = world.accounts.filter((a) => a.name !== 'backfill');
    const backlog = world.accounts.find((a) => a.name === 'backfill')!;
    // One order each first, not timed: the catalog read once, as a long-running worker has.
    for (const a of world.accounts) a.feed.append('orders', benchOrders(`WARM-${a.name}`, 1));
    await completedEach(world, world.accounts, 1, 180_000);

    o.log(`accounts-fair backfill: live orders alone for ${o.seconds} s`);
    const alone = await livePhase(world, live, { tag: 'A', rate: o.liveRate, seconds: o.seconds });
    o.log(`  alone: ${JSON.stringify(alone)}`);

    const file = join(world.dir, 'backfill.ndjson');
    writeFileSync(
      file,
      benchOrders('BF', o.backfill)
        .map((r) => JSON.stringify(r))
        .join('\n') + '\n',
    );
    const importStarted = Date.now();
    const importer = spawnCli({
      root: ROOT,
      name: 'import',
      args: ['import', 'orders', file, '--account', 'backfill'],
      env: world.env,
      logFile: join(world.dir, 'import.log'),
      useDist: world.dist,
    });
    const code = await importer.exited;
    if (code !== 0) throw new Error(`inventory-sync import exited ${code}: see ${join(world.dir, 'import.log')}`);
    const importSeconds = round((Date.now() - importStarted) / 1000);
    const backfill0 = await backlog.queue.getJobCountByTypes('completed');
    o.log(`accounts-fair backfill: ${o.backfill} orders imported in ${importSeconds} s; live orders beside them for ${o.seconds} s`);
    const t0 = Date.now();
    const besidePhase = livePhase(world, live, { tag: 'W', rate: o.liveRate, seconds: o.seconds });
    // The backlog's pace over the live orders' arrival (the phase's first `seconds`).
    await sleep(o.seconds * 1000);
    const backfillDone = (await backlog.queue.getJobCountByTypes('completed')) - backfill0;
    const backfillPerMinute = round((backfillDone * 60_000) / (Date.now() - t0));
    const beside = await besidePhase;
    o.log(`  beside: ${JSON.stringify(beside)}`);
    const backlogLeft = o.backfill + 1 - (await backlog.queue.getJobCountByTypes('completed'));
    failed = false;
    return {
      live: o.live,
      budget: o.budget,
      liveRate: o.liveRate,
      backfill: o.backfill,
      backfillBudget: o.backfillBudget,
      seconds: o.seconds,
      alone,
      beside,
      p99DeltaMs: beside.p99Ms - alone.p99Ms,
      p50Ratio: round(beside.p50Ms / Math.max(1, alone.p50Ms), 2),
      p99Ratio: round(beside.p99Ms / Math.max(1, alone.p99Ms), 2),
      importSeconds,
      backfillPerMinute,
      backfillBound: o.backfillBudget / 4,
      backlogLeft,
    };
  } finally {
    await world.close(failed);
    await redis.stop();
  }
}

/** Defaults of the command line and of `npm run bench`'s sections. */
export const FAIR_DEFAULTS = {
  accounts: 50,
  budget: 120,
  seconds: 120,
  live: 10,
  backfill: 20_000,
  backfillBudget: 6_000,
  liveSeconds: 120,
  latencyMs: 20,
  workers: 1,
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const d = FAIR_DEFAULTS;
  const { values } = parseArgs({
    options: {
      part: { type: 'string', default: 'both' },
      accounts: { type: 'string', default: String(d.accounts) },
      budget: { type: 'string', default: String(d.budget) },
      seconds: { type: 'string', default: String(d.seconds) },
      live: { type: 'string', default: String(d.live) },
      'live-rate': { type: 'string' },
      'live-seconds': { type: 'string', default: String(d.liveSeconds) },
      backfill: { type: 'string', default: String(d.backfill) },
      'backfill-budget': { type: 'string', default: String(d.backfillBudget) },
      latency: { type: 'string', default: String(d.latencyMs) },
      workers: { type: 'string', default: String(d.workers) },
      cluster: { type: 'boolean', default: false },
    },
  });
  if (!['budget', 'backfill', 'both'].includes(values.part)) throw new Error('--part: budget, backfill or both');
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const budget = Number(values.budget);
  const common = { budget, workers: Number(values.workers), cluster: values.cluster, log: say };
  if (values.part !== 'backfill')
    say(JSON.stringify(await runBudgetPart({ ...common, seconds: Number(values.seconds), accounts: Number(values.accounts) })));
  if (values.part !== 'budget')
    say(
      JSON.stringify(
        await runBackfillPart({
          ...common,
          seconds: Number(values['live-seconds']),
          live: Number(values.live),
          liveRate: values['live-rate'] ? Number(values['live-rate']) : budget / 8,
          backfill: Number(values.backfill),
          backfillBudget: Number(values['backfill-budget']),
          latencyMs: Number(values.latency),
        }),
      ),
    );
}
