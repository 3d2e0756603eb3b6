/**
 * Fair turns between accounts (issue 56): `inventory-sync worker` processes of ACCOUNTS_FILE (the real CLI, dist/) give
 * the accounts with work their turns through the ready set (src/queue/dispatch/). Every account has its own sandbox (its
 * own POST budget, fixed 1-minute windows, its INVENTORY_POST_PER_MINUTE the same) and takes pushes only (one receiver,
 * INGEST_PORT on the first process); no feed is polled.
 *
 * - `turns`: `accounts` accounts, `busy` of them with a backlog of `backlog` orders each (`inventory-sync import`), the
 *   rest getting pushed orders at a trickle (`rate` a second in all, each to a live account in turn). In one run: every
 *   account's first order (its catalog read once), `seconds` of live orders alone, the backlogs imported, `settle` s,
 *   and `seconds` of live orders beside the backlogs. Live orders are timed from the receiver's acknowledgement to
 *   their job's completion (p50, p99 alone and beside); the busy accounts' pace over the whole budget windows of the
 *   second (the POSTs their sandboxes took a minute / 4, and the orders they completed) against their bound (budget /
 *   4: an order is 4 POSTs).
 * - `weight`: two accounts with backlogs and budgets far above what one place can do, one weighted 2
 *   (ACCOUNT_WEIGHT in ACCOUNTS_FILE): one process with one place and short turns, so the place limits them. Their
 *   completed orders, turns and the time each held the place over whole rounds of at least `seconds` (from a moment the
 *   heavy account takes the place from the light one to such a moment).
 *
 *   npx tsx bench/accounts-fairness.ts [--part turns|weight|both] [--accounts 1000] [--busy 10] [--backlog 20000]
 *     [--busy-budget 240] [--live-budget 600] [--rate 1] [--seconds 120] [--settle 30] [--processes 2] [--places 6]
 *     [--idle 1] [--turn 10] [--weight-backlog 80000] [--weight-seconds 360] [--weight-turn 10] [--weight-shards 8] [--cluster]
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Queue } from 'bullmq';
import { accountPrefix } from '../config/accounts.js';
import { freePort } from '../src/net/free-port.js';
import { shardKeys, shardOf } from '../src/queue/dispatch/ready-set.js';
import { startSandbox, type Sandbox } from '../src/sandbox/sandbox.js';
import { distOnce, runRedis, type RunRedis } from './accounts-fair.js';
import { spawnCli, waitForLog, type CliProcess } from './lib/cli-process.js';
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
import { benchOrders, type BenchOrder } from './lib/order-records.js';
import { newWebhookSecret, percentile, webhookHeaders } from './lib/push-signing.js';
import { finishedTimes, latencyFigures, type LatencyFigures } from './push-latency.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BASE = 'fairness';
/** READY_SHARDS of the runs unless given (the program's default). */
const SHARDS = 8;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;
const load = () => loadavg().map((l) => round(l));

interface FairAccount {
  name: string;
  sandbox: Sandbox;
  queue: Queue;
}

interface FairWorld {
  accounts: FairAccount[];
  env: Record<string, string>;
  dist: boolean;
  processes: CliProcess[];
  dir: string;
  redis: RunRedis;
  /** READY_SHARDS of its processes. */
  shards: number;
  /** Pushes one order to an account's receiver; answers when it was acknowledged, or undefined when refused. */
  push(account: string, order: BenchOrder): Promise<number | undefined>;
  close(keepLogs?: boolean): Promise<void>;
}

interface WorldOptions {
  names: string[];
  budgetOf: (name: string) => number;
  weightOf?: (name: string) => number | undefined;
  processes: number;
  places: number;
  idleSeconds: number;
  turnSeconds: number;
  latencyMs: number;
  /** READY_SHARDS (default 8, the program's). */
  shards?: number;
  log: (s: string) => void;
}

/** Sandboxes, the file, and the worker processes (the first with the receiver), started and ready. */
async function startFairWorld(o: WorldOptions, redis: RunRedis): Promise<FairWorld> {
  const dir = mkdtempSync(join(tmpdir(), 'isync-accounts-fairness-'));
  const dist = distOnce(o.log);
  const accounts: FairAccount[] = [];
  for (let i = 0; i < o.names.length; i += 50) {
    const chunk = o.names.slice(i, i + 50);
    const sandboxes = await Promise.all(
      chunk.map((name) =>
        startSandbox({ data: 'demo', budgets: { post: { limit: o.budgetOf(name), windowMs: 60_000 } }, latency: { ms: o.latencyMs } }),
      ),
    );
    chunk.forEach((name, j) =>
      accounts.push({
        name,
        sandbox: sandboxes[j]!,
        queue: new Queue('orders', { connection: redis.connection, prefix: accountPrefix(BASE, name) }),
      }),
    );
  }
  const file = join(dir, 'accounts.json');
  const entries = accounts.map((a) => {
    const weight = o.weightOf?.(a.name);
    return [
      a.name,
      {
        INVENTORY_BASE_URL: a.sandbox.url,
        INVENTORY_ACCOUNT: a.sandbox.account,
        INVENTORY_API_KEY: a.sandbox.key,
        INVENTORY_API_SECRET: a.sandbox.secret,
        INVENTORY_POST_PER_MINUTE: o.budgetOf(a.name),
        ...(weight === undefined ? {} : { ACCOUNT_WEIGHT: weight }),
      },
    ];
  });
  writeFileSync(file, JSON.stringify({ accounts: Object.fromEntries(entries) }));
  const secret = newWebhookSecret();
  const ingestPort = await freePort();
  const env = {
    ...redis.env,
    QUEUE_PREFIX: BASE,
    ACCOUNTS_FILE: file,
    INGEST_SECRET: secret,
    WORKER_ACCOUNTS_OPEN: String(o.places),
    ACCOUNT_IDLE_SECONDS: String(o.idleSeconds),
    ACCOUNT_TURN_SECONDS: String(o.turnSeconds),
    READY_SHARDS: String(o.shards ?? SHARDS),
    WORKER_HTTP_PORT: '0',
    LOG_LEVEL: 'warn',
  };
  const processes: CliProcess[] = [];
  for (let w = 0; w < o.processes; w++)
    processes.push(
      spawnCli({
        root: ROOT,
        name: `worker-${w}`,
        args: ['worker'],
        env: w === 0 ? { ...env, INGEST_PORT: String(ingestPort), LOG_LEVEL: 'info' } : env,
        logFile: join(dir, `worker-${w}.log`),
        useDist: dist,
      }),
    );
  const close = async (keepLogs = false) => {
    await Promise.all(processes.map((p) => p.stop(15_000)));
    for (const a of accounts) {
      await a.queue.close();
      await a.sandbox.close();
    }
    if (keepLogs) o.log(`accounts-fairness: the workers' logs are kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForLog(() => readFileSync(processes[0]!.logFile, 'utf8'), /worker started/, 300_000, 'the first worker process');
  } catch (err) {
    await close(true);
    throw err;
  }
  return {
    accounts,
    env,
    dist,
    processes,
    dir,
    redis,
    shards: o.shards ?? SHARDS,
    async push(account, order) {
      const body = JSON.stringify(order);
      const res = await fetch(`http://127.0.0.1:${ingestPort}/ingest/${account}/orders`, {
        method: 'POST',
        headers: webhookHeaders(secret, `msg_${order.orderId}`, body),
        body,
      });
      await res.text();
      return res.ok ? Date.now() : undefined;
    },
    close,
  };
}

/** Waits for the pushed orders' jobs to complete (at most `timeoutMs`); answers each completed one's finishedOn. */
async function completions(world: FairWorld, pending: Map<string, FairAccount>, timeoutMs: number): Promise<Map<string, number>> {
  const finished = new Map<string, number>();
  const until = Date.now() + timeoutMs;
  while (finished.size < pending.size && Date.now() < until) {
    const accounts = new Set([...pending].filter(([id]) => !finished.has(id)).map(([, a]) => a));
    for (const a of accounts) for (const [id, t] of await finishedTimes(a.queue)) if (pending.has(id)) finished.set(id, t);
    if (world.processes.some((p) => !p.alive())) throw new Error(`a worker process ended early: see ${world.dir}`);
    if (finished.size < pending.size) await sleep(500);
  }
  return finished;
}

/**
 * What the ready set held, sampled every half second: accounts waiting for a place (ready, not leased) and open; and
 * the share of the samples in which each watched account (the busy ones) held no place, in %.
 */
interface Occupancy {
  waitingMax: number;
  waitingMean: number;
  openMean: number;
  closedPercent: number[];
}

function sampleOccupancy(world: FairWorld, watch: readonly string[] = []): { stop(): Occupancy; leased(): Promise<string[]> } {
  const c = world.redis.connection;
  const read = async () => {
    const ready = new Set<string>();
    const leased = new Set<string>();
    for (let s = 0; s < world.shards; s++) {
      const k = shardKeys(BASE, s);
      for (const m of await c.zrange(k.ready, '0', '-1')) ready.add(m);
      for (const m of await c.zrangebyscore(k.lease, String(Date.now()), '+inf')) leased.add(m);
    }
    return { waiting: [...ready].filter((m) => !leased.has(m)).length, leased: [...leased] };
  };
  const samples: Array<{ waiting: number; open: number }> = [];
  const closed = watch.map(() => 0);
  let on = true;
  const loop = (async () => {
    while (on) {
      const r = await read().catch(() => undefined);
      if (r) samples.push({ waiting: r.waiting, open: r.leased.length });
      if (r) watch.forEach((name, i) => void (r.leased.includes(name) || closed[i]!++));
      await sleep(500);
    }
  })();
  return {
    stop() {
      on = false;
      void loop;
      const mean = (f: (x: { waiting: number; open: number }) => number) =>
        round(samples.reduce((t, x) => t + f(x), 0) / Math.max(1, samples.length));
      return {
        waitingMax: Math.max(0, ...samples.map((x) => x.waiting)),
        waitingMean: mean((x) => x.waiting),
        openMean: mean((x) => x.open),
        closedPercent: closed.map((n) => round((100 * n) / Math.max(1, samples.length))),
      };
    },
    leased: async () => (await read()).leased,
  };
}

/**
 * `seconds` of live orders, `rate` a second in all, each pushed to the next live account of a shuffled round; timed
 * from acknowledgement to completion. Also answers the ready set's occupancy over the arrivals.
 */
async function livePhase(
  world: FairWorld,
  live: FairAccount[],
  o: { tag: string; rate: number; seconds: number; watch?: readonly string[]; onArrivalsDone?: () => Promise<void> },
): Promise<{ latency: LatencyFigures; occupancy: Occupancy }> {
  const order = [...live].sort(() => Math.random() - 0.5);
  const count = Math.round(o.rate * o.seconds);
  const arrived = new Map<string, number>();
  const pending = new Map<string, FairAccount>();
  const acks: Promise<void>[] = [];
  const sampler = sampleOccupancy(world, o.watch);
  const started = Date.now();
  for (let i = 0; i < count; i++) {
    await sleep(Math.max(0, started + (i * 1000) / o.rate - Date.now()));
    const account = order[i % order.length]!;
    const [rec] = benchOrders(`L-${o.tag}-${account.name}-${i}`, 1);
    pending.set(rec!.orderId, account);
    acks.push(
      world.push(account.name, rec!).then(
        (at) => void (at !== undefined && arrived.set(rec!.orderId, at)),
        () => undefined,
      ),
    );
  }
  await Promise.all(acks);
  await o.onArrivalsDone?.();
  const occupancy = sampler.stop();
  const finished = await completions(world, pending, 120_000);
  return { latency: latencyFigures(arrived, finished), occupancy };
}

/** Every account's first order (its catalog read once, as a long-running deployment has): pushed, and completed. */
async function warmUp(world: FairWorld, log: (s: string) => void): Promise<number> {
  const started = Date.now();
  const pending = new Map<string, FairAccount>();
  for (let i = 0; i < world.accounts.length; i += 20)
    await Promise.all(
      world.accounts.slice(i, i + 20).map(async (a) => {
        const [rec] = benchOrders(`WARM-${a.name}`, 1);
        pending.set(rec!.orderId, a);
        if ((await world.push(a.name, rec!)) === undefined) throw new Error(`the receiver refused ${a.name}'s order: see ${world.dir}`);
      }),
    );
  const done = await completions(world, pending, 900_000);
  if (done.size < pending.size) throw new Error(`${pending.size - done.size} warm-up orders did not complete: see ${world.dir}`);
  const seconds = round((Date.now() - started) / 1000);
  log(`accounts-fairness: every account's first order completed in ${seconds} s`);
  return seconds;
}

/** Queues an account's backlog with the real CLI (`inventory-sync import orders FILE --account NAME`). */
async function importBacklog(world: FairWorld, account: string, orders: number): Promise<void> {
  const file = join(world.dir, `${account}.ndjson`);
  writeFileSync(
    file,
    benchOrders(`BL-${account}`, orders)
      .map((r) => JSON.stringify(r))
      .join('\n') + '\n',
  );
  const code = await spawnCli({
    root: ROOT,
    name: 'import',
    args: ['import', 'orders', file, '--account', account],
    env: world.env,
    logFile: join(world.dir, `import-${account}.log`),
    useDist: world.dist,
  }).exited;
  rmSync(file, { force: true });
  if (code !== 0) throw new Error(`inventory-sync import exited ${code}: see ${join(world.dir, `import-${account}.log`)}`);
}

const completedOf = (a: FairAccount) => a.queue.getJobCountByTypes('completed');

export interface TurnsOptions {
  accounts: number;
  busy: number;
  backlog: number;
  busyBudget: number;
  liveBudget: number;
  /** Live orders a second, over all the live accounts. */
  rate: number;
  seconds: number;
  settle: number;
  processes: number;
  places: number;
  idleSeconds: number;
  turnSeconds: number;
  latencyMs: number;
  cluster: boolean;
  log: (s: string) => void;
}

export interface TurnsFigures extends Omit<TurnsOptions, 'log' | 'cluster'> {
  warmSeconds: number;
  importSeconds: number;
  alone: LatencyFigures;
  beside: LatencyFigures;
  aloneOccupancy: Occupancy;
  besideOccupancy: Occupancy;
  p50Ratio: number;
  p99Ratio: number;
  p99DeltaMs: number;
  bound: number;
  /** The busy accounts over the whole budget windows of the live orders beside them (bench/lib/budget-windows.ts). */
  busyPace: PaceSummary;
  /** The share of the second window's samples in which a busy account held no place (closed, or waiting), in %: mean and most. */
  busyClosedMeanPercent: number;
  busyClosedMaxPercent: number;
  /** The load average at the start and at the end. */
  loadStart: number[];
  loadEnd: number[];
}

/** Busy accounts beside live ones (see the file's head). */
export async function runTurnsPart(o: TurnsOptions): Promise<TurnsFigures> {
  const loadStart = load();
  const redis = await runRedis(o.cluster);
  const busyNames = Array.from({ length: o.busy }, (_, i) => `busy${String(i).padStart(2, '0')}`);
  const liveNames = Array.from({ length: o.accounts - o.busy }, (_, i) => `live${String(i).padStart(4, '0')}`);
  o.log(
    `accounts-fairness turns: ${o.accounts} accounts (${o.busy} with ${o.backlog} orders at ${o.busyBudget} POST/min), ` +
      `${o.processes} process(es) × ${o.places} places, idle ${o.idleSeconds} s, turn ${o.turnSeconds} s; load ${loadStart.join(', ')}`,
  );
  const busySet = new Set(busyNames);
  const world = await startFairWorld(
    { ...o, names: [...busyNames, ...liveNames], budgetOf: (n) => (busySet.has(n) ? o.busyBudget : o.liveBudget) },
    redis,
  );
  let failed = true;
  try {
    const warmSeconds = await warmUp(world, o.log);
    const busy = world.accounts.filter((a) => busySet.has(a.name));
    const live = world.accounts.filter((a) => !busySet.has(a.name));
    o.log(`accounts-fairness turns: live orders alone for ${o.seconds} s (${o.rate} a second)`);
    const alone = await livePhase(world, live, { tag: 'A', rate: o.rate, seconds: o.seconds });
    o.log(`  alone: ${JSON.stringify(alone)}`);
    const importStarted = Date.now();
    for (const a of busy) await importBacklog(world, a.name, o.backlog);
    const importSeconds = round((Date.now() - importStarted) / 1000);
    o.log(`accounts-fairness turns: ${o.busy} backlogs imported in ${importSeconds} s; ${o.settle} s to settle`);
    await sleep(o.settle * 1000);
    // The busy accounts are counted over whole budget windows (bench/lib/budget-windows.ts): the live orders beside
    // them start with a window, and their `seconds` are whole windows.
    const windows = windowsOf(o.seconds);
    const start = await untilWindowStart();
    let paces: WindowedPace[] = [];
    const beside = await livePhase(world, live, {
      tag: 'B',
      rate: o.rate,
      seconds: (windows * BUDGET_WINDOW_MS) / 1000,
      watch: busy.map((a) => a.name),
      onArrivalsDone: async () => {
        paces = await Promise.all(busy.map((a) => windowedPace(redis.connection, a.sandbox, a.queue, start, windows)));
      },
    });
    o.log(`  beside: ${JSON.stringify(beside)}; busy per window, orders completed and POSTs taken: ${paceLine(paces)}`);
    const bound = o.busyBudget / 4;
    failed = false;
    const { log: _log, cluster: _cluster, ...given } = o;
    return {
      ...given,
      warmSeconds,
      importSeconds,
      alone: alone.latency,
      beside: beside.latency,
      aloneOccupancy: alone.occupancy,
      besideOccupancy: beside.occupancy,
      p50Ratio: round(beside.latency.p50Ms / Math.max(1, alone.latency.p50Ms), 2),
      p99Ratio: round(beside.latency.p99Ms / Math.max(1, alone.latency.p99Ms), 2),
      p99DeltaMs: beside.latency.p99Ms - alone.latency.p99Ms,
      bound,
      busyPace: summarizePaces(paces, bound),
      busyClosedMeanPercent: round(beside.occupancy.closedPercent.reduce((t, x) => t + x, 0) / Math.max(1, o.busy)),
      busyClosedMaxPercent: Math.max(0, ...beside.occupancy.closedPercent),
      loadStart,
      loadEnd: load(),
    };
  } finally {
    await world.close(failed);
    await redis.stop();
  }
}

export interface WeightFigures {
  /** READY_SHARDS: 8, the default (the two accounts in shards of their own), or 1. */
  shards: number;
  backlog: number;
  budget: number;
  /** At least this long (asked), and the whole rounds measured (s). */
  seconds: number;
  roundSeconds: number;
  turnSeconds: number;
  /**
   * Per account (weighted 2, weighted 1) over the window: orders completed, turns begun (the place changed hands), turns
   * charged (ended: kept or handed back) and seconds holding the place.
   */
  accounts: Array<{ name: string; weight: number; shard: number; completed: number; turns: number; charged: number; heldSeconds: number }>;
  completedRatio: number;
  turnsRatio: number;
  chargedRatio: number;
  heldRatio: number;
  loadStart: number[];
  loadEnd: number[];
}

/** Two accounts limited by one place, not their budgets, one weighted 2: their shares of it over `seconds`. */
export async function runWeightPart(o: {
  backlog: number;
  budget: number;
  seconds: number;
  turnSeconds: number;
  shards: number;
  cluster: boolean;
  log: (s: string) => void;
}): Promise<WeightFigures> {
  const loadStart = load();
  const redis = await runRedis(o.cluster);
  const weights: Record<string, number> = { heavy: 2, light: 1 };
  o.log(
    `accounts-fairness weight: heavy (ACCOUNT_WEIGHT 2) and light (1), ${o.backlog} orders each, one place, turn ${o.turnSeconds} s, ${o.shards} shard(s)`,
  );
  const world = await startFairWorld(
    {
      names: Object.keys(weights),
      budgetOf: () => o.budget,
      weightOf: (n) => weights[n],
      processes: 1,
      places: 1,
      idleSeconds: 15,
      turnSeconds: o.turnSeconds,
      latencyMs: 0,
      shards: o.shards,
      log: o.log,
    },
    redis,
  );
  let failed = true;
  try {
    await warmUp(world, o.log);
    for (const a of world.accounts) await importBacklog(world, a.name, o.backlog);
    await sleep(10_000);
    const sampler = sampleOccupancy(world);
    const holderNow = async () => (await sampler.leased())[0];
    // Whole rounds: from a moment `heavy` takes the place from `light` to the first such moment `seconds` later, so that
    // neither end cuts a turn (the stride's lag, up to a turn either way, is all that is left at the ends).
    const heavyTakes = async (deadline: number) => {
      let prev = await holderNow();
      for (;;) {
        await sleep(100);
        const name = await holderNow();
        if (name === 'heavy' && prev === 'light') return;
        if (Date.now() > deadline) throw new Error(`heavy did not take the place from light by then: see ${world.dir}`);
        prev = name ?? prev;
      }
    };
    await heavyTakes(Date.now() + 120_000);
    const before = await Promise.all(world.accounts.map(completedOf));
    const held = new Map<string, number>();
    const turns = new Map<string, number>();
    // A turn is charged to its account's pass when it ends, kept (still holding the place) or handed back.
    const passOf = (a: FairAccount) => world.redis.connection.hget(shardKeys(BASE, shardOf(a.name, o.shards)).pass, a.name);
    const passes = await Promise.all(world.accounts.map(passOf));
    const charged = world.accounts.map(() => 0);
    // The last account seen holding the place, and the one holding it at the last sample (none between two turns).
    let holder: string | undefined = 'heavy';
    let sampled: string | undefined = 'heavy';
    turns.set('heavy', 1);
    const t0 = Date.now();
    let last = t0;
    for (;;) {
      await sleep(100);
      const now = Date.now();
      const name = await holderNow();
      if (sampled) held.set(sampled, (held.get(sampled) ?? 0) + (now - last));
      sampled = name;
      const passesNow = await Promise.all(world.accounts.map(passOf));
      passesNow.forEach((p, i) => void (p !== passes[i] && (charged[i]!++, (passes[i] = p))));
      last = now;
      // The round ends where the next begins: heavy's turn then is the next round's.
      if (name === 'heavy' && holder === 'light' && now - t0 >= o.seconds * 1000) break;
      if (name && name !== holder) turns.set(name, (turns.get(name) ?? 0) + 1);
      holder = name ?? holder;
      if (now - t0 > o.seconds * 1000 + 120_000) throw new Error(`no round ended in the 120 s after the window: see ${world.dir}`);
    }
    const roundSeconds = round((last - t0) / 1000);
    const after = await Promise.all(world.accounts.map(completedOf));
    sampler.stop();
    const accounts = world.accounts.map((a, i) => ({
      name: a.name,
      weight: weights[a.name]!,
      shard: shardOf(a.name, o.shards),
      completed: after[i]! - before[i]!,
      turns: turns.get(a.name) ?? 0,
      charged: charged[i]!,
      heldSeconds: round((held.get(a.name) ?? 0) / 1000),
    }));
    o.log(`  ${JSON.stringify(accounts)}`);
    const [h, l] = accounts as [(typeof accounts)[0], (typeof accounts)[0]];
    const ratio = (a: number, b: number) => round(a / Math.max(1e-9, b), 2);
    failed = false;
    return {
      shards: o.shards,
      backlog: o.backlog,
      budget: o.budget,
      seconds: o.seconds,
      roundSeconds,
      turnSeconds: o.turnSeconds,
      accounts,
      completedRatio: ratio(h.completed, l.completed),
      turnsRatio: ratio(h.turns, l.turns),
      chargedRatio: ratio(h.charged, l.charged),
      heldRatio: ratio(h.heldSeconds, l.heldSeconds),
      loadStart,
      loadEnd: load(),
    };
  } finally {
    await world.close(failed);
    await redis.stop();
  }
}

/** The full world of issue 56, and the weight part's. */
export const FAIRNESS_DEFAULTS = {
  accounts: 1_000,
  busy: 10,
  backlog: 20_000,
  busyBudget: 240,
  liveBudget: 600,
  rate: 1,
  seconds: 120,
  settle: 30,
  processes: 2,
  places: 6,
  idleSeconds: 1,
  turnSeconds: 10,
  latencyMs: 20,
  weightBacklog: 80_000,
  weightBudget: 60_000,
  weightSeconds: 360,
  weightTurnSeconds: 10,
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const d = FAIRNESS_DEFAULTS;
  const num = (v: string | undefined, dflt: number) => (v === undefined ? dflt : Number(v));
  const names = ['part', 'accounts', 'busy', 'backlog', 'busy-budget', 'live-budget', 'rate', 'seconds', 'settle', 'processes'];
  const more = ['places', 'idle', 'turn', 'weight-backlog', 'weight-seconds', 'weight-turn', 'weight-shards'];
  const options: Record<string, { type: 'string' } | { type: 'boolean' }> = { cluster: { type: 'boolean' } };
  for (const k of [...names, ...more]) options[k] = { type: 'string' };
  const v = parseArgs({ options }).values as Record<string, string | boolean | undefined>;
  const part = (v.part as string | undefined) ?? 'both';
  const s = (k: string) => v[k] as string | undefined;
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const cluster = Boolean(v.cluster);
  if (part !== 'weight')
    say(
      JSON.stringify(
        await runTurnsPart({
          accounts: num(s('accounts'), d.accounts),
          busy: num(s('busy'), d.busy),
          backlog: num(s('backlog'), d.backlog),
          busyBudget: num(s('busy-budget'), d.busyBudget),
          liveBudget: num(s('live-budget'), d.liveBudget),
          rate: num(s('rate'), d.rate),
          seconds: num(s('seconds'), d.seconds),
          settle: num(s('settle'), d.settle),
          processes: num(s('processes'), d.processes),
          places: num(s('places'), d.places),
          idleSeconds: num(s('idle'), d.idleSeconds),
          turnSeconds: num(s('turn'), d.turnSeconds),
          latencyMs: d.latencyMs,
          cluster,
          log: say,
        }),
      ),
    );
  if (part !== 'turns')
    say(
      JSON.stringify(
        await runWeightPart({
          backlog: num(s('weight-backlog'), d.weightBacklog),
          budget: d.weightBudget,
          seconds: num(s('weight-seconds'), d.weightSeconds),
          turnSeconds: num(s('weight-turn'), d.weightTurnSeconds),
          shards: num(s('weight-shards'), 8),
          cluster,
          log: say,
        }),
      ),
    );
}
