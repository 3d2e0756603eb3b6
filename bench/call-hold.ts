/**
 * A fault held where it happens (issue 45): `inventory-sync worker` (a child process) syncs orders and stock counts from
 * a feed server against the sandbox while one call of the service (shipment creates) answers 503 for `seconds`, or the
 * whole service does. Measures the requests sent to the failing call per minute of its outage, the holds it opened,
 * what the rest did meanwhile (counts written, orders created), and the time from its return to the first job through
 * it; every order created and shipped once.
 *
 *   npx tsx bench/call-hold.ts [--seconds 120] [--mode call|service]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { startFeedServer } from '../src/feed/feed-server.js';
import { startRedisServer } from '../src/redis/embedded-server.js';
import { startSandbox } from '../src/sandbox/sandbox.js';
import { benchWorkerEnv } from './lib/worker-env.js';
import { spawnCli } from './lib/cli-process.js';
import { settledOnce, until } from './lib/wait-until.js';
import { benchOrders } from './lib/order-records.js';
import { STREAMS } from '../jobs/kinds.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SHIPMENT = /\/api\/shipment$/;

export interface CallHoldOptions {
  /** How long the call (or the service) answers 503. Default 120. */
  seconds?: number;
  /** One call down (shipment creates), or the whole service. */
  mode: 'call' | 'service';
  log?: (line: string) => void;
}

export interface CallHoldFigures {
  mode: 'call' | 'service';
  seconds: number;
  /** Requests that reached the failing call (the service: any request) while it failed, and per minute of it. */
  requests: number;
  perMinute: number;
  /** In the outage's last half (after the first trials): per minute. */
  lastHalfPerMinute: number;
  /** Holds of shipment creates opened meanwhile, and whether the account-wide outage opened. */
  holds: number;
  outage: boolean;
  /** What the rest did while it failed: variances posted, orders created. */
  variancesDuring: number;
  ordersCreatedDuring: number;
  /** From the return to the first request of the call answered 200 (the first job through it), ms. */
  returnToFirstMs: number;
  /** From the return to every order completed, ms. */
  returnToAllMs: number;
  /** Orders not created and shipped exactly once. */
  notOnce: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Counts of batch `b`: products of their own (a count that matches the stock posts nothing). */
const counts = (b: number, n: number) =>
  Array.from({ length: n }, (_, i) => ({
    countId: `C${b}-${i}`,
    location: `Main Warehouse / A-0${(i % 6) + 1}`,
    countDate: '2026-11-30',
    items: [{ productId: `SKU-${String(100 + b * n + i).padStart(4, '0')}`, quantity: 500 + i }],
  }));

export async function runCallHold(o: CallHoldOptions): Promise<CallHoldFigures> {
  const log = o.log ?? (() => undefined);
  const seconds = o.seconds ?? 120;
  const dir = mkdtempSync(join(tmpdir(), 'isync-call-hold-'));
  const logFile = join(dir, 'worker.log');
  const server = await startRedisServer();
  const sandbox = await startSandbox({ port: 0, data: 'demo' });
  const feed = await startFeedServer({ names: STREAMS, port: 0, token: 'bench-token' });
  const worker = spawnCli({
    root: ROOT,
    name: 'worker',
    args: ['worker'],
    env: {
      ...benchWorkerEnv({ redisUrl: server.url, prefix: 'hold', sandbox, feedUrl: feed.url }),
      STOCK_SYNC_CRON: '*/5 * * * * *',
      WORKER_CONCURRENCY: '8',
      WORKER_HTTP_PORT: '0',
      LOG_LEVEL: 'info',
    },
    logFile,
  });
  const lines = () => readFileSync(logFile, 'utf8').split('\n').filter(Boolean);
  try {
    await until(() => lines().some((l) => l.includes('worker started')), 60_000, 'the worker to start');
    const warm = benchOrders('WARM', 3);
    feed.append('orders', warm);
    await until(() => warm.every((r) => settledOnce(sandbox, r.orderId)), 60_000, 'the warm-up orders');
    const orders = benchOrders('HOLD', 40);
    sandbox.admin.setFaults([o.mode === 'call' ? { kind: 'status-503', method: 'POST', path: '/api/shipment$' } : { kind: 'status-503' }]);
    const down = Date.now();
    const before = sandbox.admin.counters().creates;
    log(`${o.mode === 'call' ? 'shipment creates' : 'the whole service'} down for ${seconds} s; orders and counts keep coming`);
    for (let i = 0; i < 4; i++) {
      feed.append('orders', orders.slice(i * 10, i * 10 + 10));
      feed.append('stock-counts', counts(i, 3));
      await sleep((seconds * 1000) / 5);
    }
    await sleep(Math.max(0, down + seconds * 1000 - Date.now()));
    const up = Date.now();
    const during = sandbox.admin.counters().creates;
    const failing = (r: { method: string; path: string }) => o.mode === 'service' || (r.method === 'POST' && SHIPMENT.test(r.path));
    const sent = sandbox.admin.requests().filter((r) => r.at >= down && r.at < up && failing(r));
    const lastHalf = sent.filter((r) => r.at >= down + (seconds * 1000) / 2);
    sandbox.admin.setFaults([]);
    await until(
      () =>
        sandbox.admin.requests().some((r) => r.at >= up && r.status === 200 && (o.mode === 'service' ? r.method === 'POST' : failing(r))),
      120_000,
      'the first job through after the return',
    );
    const returnToFirstMs = Date.now() - up;
    await until(() => orders.every((r) => settledOnce(sandbox, r.orderId)), 180_000, 'every order completed');
    const returnToAllMs = Date.now() - up;
    const logged = lines();
    return {
      mode: o.mode,
      seconds,
      requests: sent.length,
      perMinute: Math.round((sent.length * 60) / seconds),
      lastHalfPerMinute: Math.round((lastHalf.length * 120) / seconds),
      holds: logged.filter((l) => l.includes('"msg":"shipment create is held:')).length,
      outage: logged.some((l) => l.includes('"msg":"the service is down:')),
      variancesDuring: during.variance - before.variance,
      ordersCreatedDuring: during.order - before.order,
      returnToFirstMs,
      returnToAllMs,
      notOnce: [...warm, ...orders].filter((r) => !settledOnce(sandbox, r.orderId)).map((r) => r.orderId),
    };
  } finally {
    await worker.stop(10_000);
    await feed.close();
    await sandbox.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { seconds: { type: 'string' }, mode: { type: 'string' } }, strict: true });
  const mode = values.mode === 'service' ? 'service' : 'call';
  const figures = await runCallHold({ mode, seconds: values.seconds ? Number(values.seconds) : 120, log: (l) => console.log(l) });
  console.log(JSON.stringify(figures, null, 2));
}
