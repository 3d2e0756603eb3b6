/**
 * No budget, 25 ms of service latency (issue 22): `inventory-sync sync --once --stream orders` (the real CLI, process
 * start included) syncs `orders` orders from a feed, against a naive sequential client written for the bench
 * (bench/lib/naive-client.ts, in this process). The CLI runs twice per run: with concurrency sized from the rate and
 * latency (the default now), and with WORKER_CONCURRENCY=16 (the fixed default before it).
 *
 *   npx tsx bench/unbudgeted.ts [--orders 200] [--latency 25] [--runs 3] [--tsx]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startFeedServer } from '../src/feed/feed-server.js';
import { createRedis, deleteKeysUnder } from '../src/redis/connection.js';
import type { SandboxProfile } from '../src/sandbox/sandbox-options.js';
import { startSandbox, type Sandbox } from '../src/sandbox/sandbox.js';
import { buildDist } from './lib/build-dist.js';
import { spawnCli } from './lib/cli-process.js';
import { median } from './lib/median.js';
import { naiveSync } from './lib/naive-client.js';
import { benchOrders } from './lib/order-records.js';
import { STREAMS } from '../jobs/kinds.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;
/** Budgets no run reaches: the account has none, but the CLI always paces to some. */
const NO_BUDGET = '1000000';

export interface UnbudgetedOptions {
  orders?: number;
  latencyMs?: number;
  runs?: number;
  /** Run the CLI from the sources through tsx instead of building dist/ first. */
  tsx?: boolean;
  profile?: SandboxProfile;
  redisUrl?: string;
  log?: (line: string) => void;
}

export interface UnbudgetedFigures {
  orders: number;
  latencyMs: number;
  /** How the CLI ran. */
  command: string;
  runs: Array<{ sizedSeconds: number; fixed16Seconds: number; naiveSeconds: number }>;
  medianSizedSeconds: number;
  medianFixed16Seconds: number;
  medianNaiveSeconds: number;
  /** naive / sized (median of the runs' ratios), and naive / fixed 16. */
  ratio: number;
  ratioFixed16: number;
}

const completions = (sandbox: Sandbox) => sandbox.admin.counters().actions;

async function cliRun(o: {
  sandbox: Sandbox;
  redisUrl: string;
  orders: number;
  tag: string;
  dist: boolean;
  env?: Record<string, string>;
  dir: string;
}): Promise<number> {
  const records = benchOrders(`UNB-${o.tag}-${Date.now()}`, o.orders);
  const feed = await startFeedServer({ port: 0, names: STREAMS, streams: { orders: records }, token: 'bench-token' });
  const prefix = `bench-unbudgeted-${process.pid}-${o.tag}`;
  const logFile = join(o.dir, `${o.tag}.log`);
  const before = completions(o.sandbox);
  try {
    const t0 = performance.now();
    const p = spawnCli({
      root: ROOT,
      name: o.tag,
      args: ['sync', '--once', '--stream', 'orders'],
      env: {
        REDIS_URL: o.redisUrl,
        QUEUE_PREFIX: prefix,
        INVENTORY_BASE_URL: o.sandbox.url,
        INVENTORY_ACCOUNT: o.sandbox.account,
        INVENTORY_API_KEY: o.sandbox.key,
        INVENTORY_API_SECRET: o.sandbox.secret,
        INVENTORY_POST_PER_MINUTE: NO_BUDGET,
        INVENTORY_GET_PER_MINUTE: NO_BUDGET,
        INVENTORY_COLLECTION_PER_HOUR: NO_BUDGET,
        UPSTREAM_URL: feed.url,
        UPSTREAM_TOKEN: 'bench-token',
        LOG_LEVEL: 'warn',
        ...o.env,
      },
      logFile,
      useDist: o.dist,
    });
    const code = await p.exited;
    const seconds = (performance.now() - t0) / 1000;
    const done = completions(o.sandbox) - before;
    if (code !== 0 || done !== o.orders)
      throw new Error(
        `sync --once (${o.tag}): exit ${code}, ${done} of ${o.orders} orders completed; output:\n${readFileSync(logFile, 'utf8').slice(-2000)}`,
      );
    return seconds;
  } finally {
    await feed.close();
    const redis = createRedis(o.redisUrl);
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
  }
}

export async function runUnbudgeted(o: UnbudgetedOptions = {}): Promise<UnbudgetedFigures> {
  const n = o.orders ?? 200;
  const latencyMs = o.latencyMs ?? 25;
  const redisUrl = o.redisUrl ?? 'redis://127.0.0.1:6379';
  const log = o.log ?? (() => undefined);
  const dist = o.tsx ? false : buildDist(ROOT, log);
  const dir = mkdtempSync(join(tmpdir(), 'isync-unbudgeted-'));
  const sandbox = await startSandbox({ data: 'demo', profile: o.profile, latency: { ms: latencyMs, jitterMs: Math.round(latencyMs / 5) } });
  const runs: UnbudgetedFigures['runs'] = [];
  try {
    for (let i = 0; i < (o.runs ?? 3); i++) {
      const sizedSeconds = await cliRun({ sandbox, redisUrl, orders: n, tag: `sized-${i}`, dist, dir });
      const fixed16Seconds = await cliRun({
        sandbox,
        redisUrl,
        orders: n,
        tag: `fixed16-${i}`,
        dist,
        dir,
        env: { WORKER_CONCURRENCY: '16' },
      });
      const before = completions(sandbox);
      const t0 = performance.now();
      await naiveSync({
        url: sandbox.url,
        account: sandbox.account,
        key: sandbox.key,
        secret: sandbox.secret,
        orders: benchOrders(`NAIVE-${i}-${Date.now()}`, n),
      });
      const naiveSeconds = (performance.now() - t0) / 1000;
      if (completions(sandbox) - before !== n) throw new Error(`naive client: ${completions(sandbox) - before} of ${n} orders completed`);
      runs.push({ sizedSeconds: round(sizedSeconds), fixed16Seconds: round(fixed16Seconds), naiveSeconds: round(naiveSeconds) });
      log(
        `  run ${i + 1}: sync --once ${round(sizedSeconds)} s (sized), ${round(fixed16Seconds)} s (WORKER_CONCURRENCY=16); naive ${round(naiveSeconds)} s`,
      );
    }
  } finally {
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return {
    orders: n,
    latencyMs,
    command: dist
      ? 'node dist/src/bin/inventory-sync.js sync --once --stream orders'
      : 'tsx src/bin/inventory-sync.ts sync --once --stream orders',
    runs,
    medianSizedSeconds: median(runs.map((r) => r.sizedSeconds)),
    medianFixed16Seconds: median(runs.map((r) => r.fixed16Seconds)),
    medianNaiveSeconds: median(runs.map((r) => r.naiveSeconds)),
    ratio: round(median(runs.map((r) => r.naiveSeconds / r.sizedSeconds))),
    ratioFixed16: round(median(runs.map((r) => r.naiveSeconds / r.fixed16Seconds))),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? Number(process.argv[i + 1]) : undefined;
  };
  const f = await runUnbudgeted({
    orders: arg('orders'),
    latencyMs: arg('latency'),
    runs: arg('runs'),
    tsx: process.argv.includes('--tsx'),
    log: console.log,
  });
  console.log(JSON.stringify(f));
}
