/**
 * Many accounts in one deployment, working (issue 36). Every account has its own sandbox (its own budget) and its
 * own feed server; one ACCOUNTS_FILE names them all; `workers` worker processes (the real CLI, dist/) serve them.
 *
 * - `budget`: `accounts` accounts, each with more orders in its feed than it can sync: the orders each completes a
 *   minute, over `seconds` after every account's first order, against its bound (POST budget / 4: an order is 4 POSTs).
 * - `backfill`: `live` accounts whose orders arrive one by one (at a quarter of their bound) beside one account with a
 *   `backfill`-order backlog; each live order timed from its appearance in the feed to its job's completion. The same
 *   run without the backlog first: the live accounts' p99 alone, then beside it.
 *
 *   npx tsx bench/accounts-fair.ts [--part budget|backfill|both] [--accounts 50] [--budget 120] [--seconds 60]
 *     [--live 10] [--backfill 20000] [--workers 1] [--cluster]
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
import { percentile } from './lib/push-signing.js';
import { finishedTimes } from './push-latency.js';
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
interface RunRedis {
  env: Record<string, string>;
  connection: Redis | Cluster;
  stop(): Promise<void>;
}

async function runRedis(cluster: boolean): Promise<RunRedis> {
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
  workers: CliProcess[];
  dir: string;
  close(): Promise<void>;
}

/** The accounts' sandboxes and feeds, the file, and the worker processes, started. */
async function startWorld(
  o: { names: string[]; budget: number; workers: number; cluster: boolean; feedOf?: (name: string) => BenchOrder[] },
  redis: RunRedis,
): Promise<World> {
  const dir = mkdtempSync(join(tmpdir(), 'isync-accounts-fair-'));
  const dist = buildDist(ROOT, () => undefined);
  const accounts: Account[] = [];
  for (const name of o.names) {
    const sandbox = await startSandbox({ data: 'demo', budgets: { post: { limit: o.budget, windowMs: 60_000 } } });
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
      UPSTREAM_URL: a.feed.url,
    },
  ]);
  writeFileSync(file, JSON.stringify({ accounts: Object.fromEntries(entries) }));
  const workers: CliProcess[] = [];
  for (let w = 0; w < o.workers; w++)
    workers.push(
      spawnCli({
        root: ROOT,
        name: `worker-${w}`,
        args: ['worker'],
        env: {
          ...redis.env,
          QUEUE_PREFIX: BASE,
          ACCOUNTS_FILE: file,
          UPSTREAM_TOKEN: TOKEN,
          INVENTORY_POST_PER_MINUTE: String(o.budget),
          ORDER_POLL_SECONDS: '1',
          WORKER_HTTP_PORT: '0',
          LOG_LEVEL: 'warn',
        },
        logFile: join(dir, `worker-${w}.log`),
        useDist: dist,
      }),
    );
  return {
    accounts,
    workers,
    dir,
    async close() {
      await Promise.all(workers.map((p) => p.stop(15_000)));
      for (const a of accounts) {
        await a.queue.close();
        await a.feed.close();
        await a.sandbox.close();
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface BudgetFigures {
  accounts: number;
  workers: number;
  budget: number;
  bound: number;
  seconds: number;
  /** Orders a minute each account completed, lowest and median. */
  lowest: number;
  median: number;
  /** Accounts at or above 95% of the bound. */
  atLeast95: number;
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
  const perAccount = Math.ceil((bound * (o.seconds + 120)) / 60);
  const world = await startWorld(
    { names, budget: o.budget, workers: o.workers, cluster: o.cluster, feedOf: (n) => benchOrders(`B-${n}`, perAccount) },
    redis,
  );
  try {
    // Each account measured from its own first completed order (its catalog read, its first window's start).
    const startedAt = new Map<string, number>();
    const deadline = Date.now() + 180_000;
    while (startedAt.size < world.accounts.length) {
      if (Date.now() > deadline)
        throw new Error(`only ${startedAt.size} of ${world.accounts.length} accounts completed an order in 180 s: see ${world.dir}`);
      for (const a of world.accounts)
        if (!startedAt.has(a.name) && (await a.queue.getJobCountByTypes('completed')) > 0) startedAt.set(a.name, Date.now());
      await sleep(500);
    }
    const counts0 = new Map<string, number>();
    for (const a of world.accounts) counts0.set(a.name, await a.queue.getJobCountByTypes('completed'));
    const t0 = Date.now();
    o.log(`accounts-fair budget: every account started; measuring ${o.seconds} s`);
    await sleep(o.seconds * 1000);
    const perMinute: number[] = [];
    for (const a of world.accounts) {
      const done = (await a.queue.getJobCountByTypes('completed')) - counts0.get(a.name)!;
      perMinute.push((done * 60_000) / (Date.now() - t0));
    }
    perMinute.sort((a, b) => a - b);
    return {
      accounts: o.accounts,
      workers: o.workers,
      budget: o.budget,
      bound,
      seconds: o.seconds,
      lowest: round(perMinute[0]!),
      median: round(percentile(perMinute, 50)),
      atLeast95: perMinute.filter((n) => n >= 0.95 * bound).length,
      worstOfBound: round(perMinute[0]! / bound, 3),
    };
  } finally {
    await world.close();
    await redis.stop();
  }
}

export interface BackfillFigures {
  live: number;
  backfill: number;
  aloneP50Ms: number;
  aloneP99Ms: number;
  besideP50Ms: number;
  besideP99Ms: number;
  /** Backfill orders the backlogged account completed while the live ones were measured. */
  backfillDone: number;
  missing: number;
}

/** Live accounts' orders, timed from the feed to completion, with or without another account's backlog. */
async function liveLatency(
  o: { live: number; backfill: number; budget: number; seconds: number; workers: number; cluster: boolean; log: (s: string) => void },
  withBackfill: boolean,
): Promise<{ ms: number[]; missing: number; backfillDone: number }> {
  const redis = await runRedis(o.cluster);
  const live = Array.from({ length: o.live }, (_, i) => `l${String(i).padStart(3, '0')}`);
  const names = withBackfill ? [...live, 'backfill'] : live;
  const tag = withBackfill ? 'W' : 'A';
  const world = await startWorld(
    {
      names,
      budget: o.budget,
      workers: o.workers,
      cluster: o.cluster,
      feedOf: (n) => (n === 'backfill' ? benchOrders(`BF-${tag}`, o.backfill) : []),
    },
    redis,
  );
  try {
    const liveAccounts = world.accounts.filter((a) => a.name !== 'backfill');
    // One order each first, not timed: the catalog read once, as a long-running worker has.
    for (const a of liveAccounts) a.feed.append('orders', benchOrders(`WARM-${tag}-${a.name}`, 1));
    const deadline = Date.now() + 180_000;
    for (const a of liveAccounts)
      while ((await a.queue.getJobCountByTypes('completed')) < 1) {
        if (Date.now() > deadline) throw new Error(`account ${a.name} did not complete its first order: see ${world.dir}`);
        await sleep(250);
      }
    const backlog = world.accounts.find((a) => a.name === 'backfill');
    const backfill0 = backlog ? await backlog.queue.getJobCountByTypes('completed') : 0;
    // Each live account gets an order every 4 / (budget / 4 a minute): a quarter of its bound.
    const everyMs = (60_000 / (o.budget / 4)) * 4;
    const arrived = new Map<string, { account: Account; at: number }>();
    const started = Date.now();
    o.log(`accounts-fair backfill (${withBackfill ? 'beside the backlog' : 'alone'}): live orders for ${o.seconds} s`);
    for (let i = 0; Date.now() - started < o.seconds * 1000; i++) {
      await sleep(Math.max(0, started + i * everyMs - Date.now()));
      for (const a of liveAccounts) {
        const [order] = benchOrders(`L-${tag}-${a.name}-${i}`, 1);
        a.feed.append('orders', [order]);
        arrived.set(order!.orderId, { account: a, at: Date.now() });
      }
    }
    const backfillDone = backlog ? (await backlog.queue.getJobCountByTypes('completed')) - backfill0 : 0;
    const until = Date.now() + 60_000;
    const finished = new Map<string, number>();
    while (Date.now() < until) {
      for (const a of liveAccounts) for (const [id, t] of await finishedTimes(a.queue)) finished.set(id, t);
      if ([...arrived.keys()].every((id) => finished.has(id))) break;
      await sleep(500);
    }
    const ms = [...arrived].filter(([id]) => finished.has(id)).map(([id, v]) => finished.get(id)! - v.at);
    return { ms: ms.sort((a, b) => a - b), missing: arrived.size - ms.length, backfillDone };
  } finally {
    await world.close();
    await redis.stop();
  }
}

export async function runBackfillPart(o: {
  live: number;
  backfill: number;
  budget: number;
  seconds: number;
  workers: number;
  cluster: boolean;
  log: (s: string) => void;
}): Promise<BackfillFigures> {
  const alone = await liveLatency(o, false);
  const beside = await liveLatency(o, true);
  return {
    live: o.live,
    backfill: o.backfill,
    aloneP50Ms: Math.round(percentile(alone.ms, 50)),
    aloneP99Ms: Math.round(percentile(alone.ms, 99)),
    besideP50Ms: Math.round(percentile(beside.ms, 50)),
    besideP99Ms: Math.round(percentile(beside.ms, 99)),
    backfillDone: beside.backfillDone,
    missing: alone.missing + beside.missing,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: {
      part: { type: 'string', default: 'both' },
      accounts: { type: 'string', default: '50' },
      budget: { type: 'string', default: '120' },
      seconds: { type: 'string', default: '60' },
      live: { type: 'string', default: '10' },
      backfill: { type: 'string', default: '20000' },
      workers: { type: 'string', default: '1' },
      cluster: { type: 'boolean', default: false },
    },
  });
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const common = {
    budget: Number(values.budget),
    seconds: Number(values.seconds),
    workers: Number(values.workers),
    cluster: values.cluster,
    log: say,
  };
  if (values.part !== 'backfill') say(JSON.stringify(await runBudgetPart({ ...common, accounts: Number(values.accounts) })));
  if (values.part !== 'budget')
    say(JSON.stringify(await runBackfillPart({ ...common, live: Number(values.live), backfill: Number(values.backfill) })));
}
