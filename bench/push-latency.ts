/**
 * Pushed against polled (issue 27): `inventory-sync worker` (a child process) syncs orders that arrive at half the
 * POST budget (an order is 4 POSTs, so budget / 8 orders a minute) against the sandbox with that budget. Pushed:
 * each order is POSTed, signed, to the worker's receiver, and timed from its acknowledgement to its job's completion.
 * Polled: the same orders are appended to a feed server the worker polls every ORDER_POLL_SECONDS (default 5), and
 * timed from their appearance in the feed to their job's completion.
 *
 * With `--on-429` the sandbox sends X-RateLimit-* on its 429s only, so a cold worker slow-starts (issue 49,
 * docs/budget-start.md); `--start-percent 100` declares the budget the program's own (INVENTORY_RATE_START_PERCENT).
 *
 *   npx tsx bench/push-latency.ts [--seconds 60] [--budget 1200] [--latency 20] [--on-429] [--start-percent N] [--pushed-only]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Queue } from 'bullmq';
import { startFeedServer } from '../src/feed/feed-server.js';
import { freePort } from '../src/net/free-port.js';
import { createRedis, deleteKeysUnder } from '../src/redis/connection.js';
import { startSandbox } from '../src/sandbox/sandbox.js';
import { STREAMS } from '../jobs/kinds.js';
import { spawnCli, waitForLog } from './lib/cli-process.js';
import { benchOrders, type BenchOrder } from './lib/order-records.js';
import { newWebhookSecret, percentile, webhookHeaders } from './lib/push-signing.js';
import { sandboxEnv } from '../src/app/sandbox-config.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface PushLatencyOptions {
  /** Seconds orders arrive for, in each run. Default 60. */
  seconds?: number;
  /** The account's POST budget a minute (the sandbox's and the worker's). Default 1,200. */
  budget?: number;
  /** Latency the sandbox adds to every answer, ms. Default 20. */
  latencyMs?: number;
  /** X-RateLimit-* on 429s only (a cold worker slow-starts). Default: on every answer. */
  on429?: boolean;
  /** INVENTORY_RATE_START_PERCENT of the worker. Default: the program's. */
  startPercent?: number;
  log?: (line: string) => void;
}

export interface LatencyFigures {
  orders: number;
  /** From acknowledgement (pushed) or appearance in the feed (polled) to the job's completion, ms. */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Orders whose job did not complete within a minute of the last arrival. */
  missing: number;
}

export interface PushLatencyFigures {
  budget: number;
  ordersPerMinute: number;
  pollSeconds: number;
  pushed: LatencyFigures;
  polled: LatencyFigures;
}

/** The latencies of the orders that arrived (by id, when) and finished (by id, when); those not finished are missing. */
export function latencyFigures(arrived: Map<string, number>, finished: Map<string, number>): LatencyFigures {
  const ms = [...arrived]
    .filter(([id]) => finished.has(id))
    .map(([id, at]) => finished.get(id)! - at)
    .sort((a, b) => a - b);
  return {
    orders: arrived.size,
    p50Ms: Math.round(percentile(ms, 50)),
    p99Ms: Math.round(percentile(ms, 99)),
    maxMs: Math.round(ms.at(-1) ?? 0),
    missing: arrived.size - ms.length,
  };
}

/** Completion time (the worker's finishedOn) of each order's job, by orderId. */
export async function finishedTimes(queue: Queue): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const job of await queue.getJobs(['completed'], 0, -1)) {
    const orderId = (job?.data as { record?: { orderId?: string } } | undefined)?.record?.orderId;
    if (orderId && job?.finishedOn) out.set(orderId, job.finishedOn);
  }
  return out;
}

interface RunOptions {
  mode: 'push' | 'poll';
  orders: BenchOrder[];
  budget: number;
  latencyMs: number;
  on429?: boolean;
  startPercent?: number;
  log: (line: string) => void;
}

/** One run: a fresh sandbox, prefix and worker; orders arrive one every 60 s / (budget / 8). */
async function runOne(r: RunOptions): Promise<LatencyFigures> {
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `bench-push-latency-${r.mode}-${process.pid}`;
  const redis = createRedis(redisUrl);
  const window = { limit: r.budget, windowMs: 60_000 };
  const sandbox = await startSandbox({
    port: 0,
    data: 'demo',
    budgets: { post: window, ...(r.on429 ? { rateHeaders: 'on-429' as const } : {}) },
    latency: { ms: r.latencyMs },
  });
  const feed = await startFeedServer({ names: STREAMS, port: 0, token: 'bench-token' });
  const dir = mkdtempSync(join(tmpdir(), 'isync-push-latency-'));
  const logFile = join(dir, 'worker.log');
  const secret = newWebhookSecret();
  const ingestPort = await freePort();
  const worker = spawnCli({
    root: ROOT,
    name: 'worker',
    args: ['worker'],
    env: {
      REDIS_URL: redisUrl,
      QUEUE_PREFIX: prefix,
      ...sandboxEnv(sandbox),
      INVENTORY_POST_PER_MINUTE: String(r.budget),
      WORKER_HTTP_PORT: '0',
      LOG_LEVEL: 'info',
      ...(r.startPercent === undefined ? {} : { INVENTORY_RATE_START_PERCENT: String(r.startPercent) }),
      ...(r.mode === 'push'
        ? { INGEST_PORT: String(ingestPort), INGEST_SECRET: secret }
        : { UPSTREAM_URL: feed.url, UPSTREAM_TOKEN: 'bench-token' }),
    },
    logFile,
  });
  const queue = new Queue('orders', { connection: redis, prefix });
  const arrived = new Map<string, number>();
  try {
    await waitForLog(() => readFileSync(logFile, 'utf8'), /worker started/, 60_000, 'the worker');
    /** Puts an order in, as the run's mode does; answers when it arrived (acknowledged, or appended), or undefined. */
    const put = async (order: BenchOrder): Promise<number | undefined> => {
      if (r.mode === 'poll') {
        feed.append('orders', [order]);
        return Date.now();
      }
      const body = JSON.stringify(order);
      const id = `msg_${order.orderId}`;
      const res = await fetch(`http://127.0.0.1:${ingestPort}/ingest/orders`, {
        method: 'POST',
        headers: webhookHeaders(secret, id, body),
        body,
      });
      await res.text();
      return res.ok ? Date.now() : undefined;
    };
    // One order first, not timed: the worker reads the catalog once (as a long-running worker has).
    const [warm] = benchOrders(`WARM-${r.mode}`, 1);
    await put(warm!);
    const end = Date.now() + 60_000;
    while (!(await finishedTimes(queue)).has(warm!.orderId)) {
      if (Date.now() > end) throw new Error('the warm-up order did not complete');
      await sleep(200);
    }
    const everyMs = 60_000 / (r.budget / 8);
    const started = Date.now();
    for (const [i, order] of r.orders.entries()) {
      await sleep(Math.max(0, started + i * everyMs - Date.now()));
      const at = await put(order);
      if (at !== undefined) arrived.set(order.orderId, at);
    }
    r.log(`${r.mode}: ${arrived.size} orders arrived in ${Math.round((Date.now() - started) / 1000)} s; waiting for the last ones`);
    const until = Date.now() + 60_000;
    let finished = await finishedTimes(queue);
    const allIn = () => [...arrived.keys()].every((id) => finished.has(id));
    while (!allIn() && Date.now() < until) {
      await sleep(500);
      finished = await finishedTimes(queue);
    }
    const missing = [...arrived.keys()].filter((id) => !finished.has(id));
    if (missing.length) {
      const counts = await queue.getJobCounts();
      r.log(`${r.mode}: not completed: ${missing.join(', ')}; jobs by state: ${JSON.stringify(counts)}`);
    }
    return latencyFigures(arrived, finished);
  } finally {
    await queue.close();
    await worker.stop();
    await feed.close();
    await sandbox.close();
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What each run of `o` shares: the budget, the latency, how the sandbox answers, the worker's start, the order count. */
function runsOf(o: PushLatencyOptions) {
  const budget = o.budget ?? 1200;
  const count = Math.round(((o.seconds ?? 60) * budget) / 8 / 60);
  const common = { budget, latencyMs: o.latencyMs ?? 20, on429: o.on429, startPercent: o.startPercent, log: o.log ?? (() => undefined) };
  return { budget, count, common };
}

/** The pushed run alone (a cold worker's first minute, issue 49). */
export async function runPushedLatency(o: PushLatencyOptions = {}): Promise<LatencyFigures> {
  const { count, common } = runsOf(o);
  return runOne({ ...common, mode: 'push', orders: benchOrders('PUSHED', count) });
}

export async function runPushLatency(o: PushLatencyOptions = {}): Promise<PushLatencyFigures> {
  const { budget, count, common } = runsOf(o);
  const log = common.log;
  log(`push latency: ${count} orders at ${budget / 8} a minute (half of ${budget} POSTs), pushed`);
  const pushed = await runPushedLatency(o);
  log(`push latency: the same orders polled`);
  const polled = await runOne({ ...common, mode: 'poll', orders: benchOrders('POLLED', count) });
  return { budget, ordersPerMinute: budget / 8, pollSeconds: 5, pushed, polled };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? Number(process.argv[i + 1]) : undefined;
  };
  const run = process.argv.includes('--pushed-only') ? runPushedLatency : runPushLatency;
  const f = await run({
    seconds: arg('seconds'),
    budget: arg('budget'),
    latencyMs: arg('latency'),
    on429: process.argv.includes('--on-429'),
    startPercent: arg('start-percent'),
    log: console.log,
  });
  console.log(JSON.stringify(f, null, 2));
}
