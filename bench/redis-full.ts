/**
 * A full Redis (issue 26): `inventory-sync worker` (a child process) syncs orders from a feed server against the
 * sandbox, on a private redis-server whose maxmemory is then set below the memory used (noeviction: every write
 * answered OOM, as a full managed Redis does), held, then raised. Measures the log lines while full, /readyz and the
 * gauge while full, the alert, the time from the raise to the next order synced, and that every order was created once.
 *
 *   npx tsx bench/redis-full.ts [--hold 20] [--orders 10]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startFeedServer } from '../src/feed/feed-server.js';
import { freePort } from '../src/net/free-port.js';
import { startRedisServer } from '../src/redis/embedded-server.js';
import { createRedis } from '../src/redis/connection.js';
import { startSandbox, type Sandbox } from '../src/sandbox/sandbox.js';
import { spawnCli } from './lib/cli-process.js';
import { settledOnce, until } from './lib/wait-until.js';
import { processCpuMs } from './lib/proc-cpu.js';
import { benchOrders } from './lib/order-records.js';
import { STREAMS } from '../jobs/kinds.js';
import { benchWorkerEnv } from './lib/worker-env.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export interface RedisFullOptions {
  /** Seconds Redis refuses writes. Default 20. */
  holdSeconds?: number;
  /** Orders synced before Redis fills; as many again put in the feed while it is full. Default 5 and 10. */
  before?: number;
  during?: number;
  /** ALERT_REDIS_REFUSED_SECONDS of the worker. Default 10. */
  alertAfterSeconds?: number;
  /** Run the compiled dist/ instead of the sources through tsx. Default false. */
  useDist?: boolean;
  log?: (line: string) => void;
}

export interface ReadyCheckSeen {
  name: string;
  ok: boolean;
  detail?: string;
}

export interface RedisFullFigures {
  /** How long writes were refused, s (from the first refused write seen to the raise). */
  heldSeconds: number;
  /** Lines the worker wrote while Redis refused writes, in all and a minute, and per `reason` (or message). */
  linesWhileFull: number;
  linesPerMinute: number;
  /** The worker process's CPU while full, % of one core (undefined without /proc). */
  cpuPercentWhileFull: number | undefined;
  byReason: Record<string, number>;
  /** /readyz while full: its status and checks; the gauge isync_redis_writes_refused_seconds. */
  readyzWhileFull: { status: number; checks: ReadyCheckSeen[] };
  gaugeWhileFull: number | undefined;
  /** Orders created in the service while full (should be none). */
  createdWhileFull: number;
  /** From the raise to the first, and to every, order put in the feed while full synced, ms. */
  msToFirstOrder: number;
  msToAllOrders: number;
  /** /readyz after the raise. */
  readyAfter: number;
  /** Orders, and those not created exactly once with one shipment, completed and shipped. */
  orders: number;
  notOnce: string[];
  ordersCreated: number;
  /** Alerts the webhook got. */
  alerts: string[];
  workerExit: number | string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runRedisFull(o: RedisFullOptions = {}): Promise<RedisFullFigures> {
  const log = o.log ?? (() => undefined);
  const holdMs = (o.holdSeconds ?? 20) * 1000;
  const before = benchOrders('FULL-A', o.before ?? 5);
  const during = benchOrders('FULL-B', o.during ?? 10);
  const dir = mkdtempSync(join(tmpdir(), 'isync-redis-full-'));
  const logFile = join(dir, 'worker.log');
  const server = await startRedisServer({ args: ['--maxmemory-policy', 'noeviction'] });
  const redis = createRedis(server.url);
  const sandbox = await startSandbox({ port: 0, data: 'demo' });
  const feed = await startFeedServer({ names: STREAMS, port: 0, token: 'bench-token' });
  const alerts: string[] = [];
  const hook = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      alerts.push((JSON.parse(body) as { text: string }).text);
      res.writeHead(200).end('{}');
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  const port = await freePort();
  const worker = spawnCli({
    root: ROOT,
    name: 'worker',
    args: ['worker'],
    env: {
      ...benchWorkerEnv({ redisUrl: server.url, prefix: 'full', sandbox, feedUrl: feed.url }),
      RETRY_BASE_DELAY_MS: '100',
      RETRY_MAX_DELAY_MS: '500',
      LOG_LEVEL: 'info',
      WORKER_HTTP_PORT: String(port),
      ALERT_WEBHOOK_URL: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hooks/alerts`,
      ALERT_REDIS_REFUSED_SECONDS: String(o.alertAfterSeconds ?? 10),
    },
    logFile,
    useDist: o.useDist,
  });
  const lines = () => readFileSync(logFile, 'utf8').split('\n').filter(Boolean);
  const url = `http://127.0.0.1:${port}`;
  const readyz = async () => {
    const res = await fetch(`${url}/readyz`);
    return { status: res.status, checks: ((await res.json()) as { checks: ReadyCheckSeen[] }).checks };
  };
  try {
    await until(() => lines().some((l) => l.includes('worker started')), 60_000, 'the worker to start');
    feed.append('orders', before);
    await until(() => before.every((r) => settledOnce(sandbox, r.orderId)), 60_000, 'the orders before');
    log(`${before.length} orders synced; filling Redis`);

    // maxmemory a little below the memory used: what the worker frees (locks, trimmed jobs) never brings it under.
    const used = Number(/used_memory:(\d+)/.exec(await redis.info('memory'))![1]);
    await redis.config('SET', 'maxmemory', String(used - 256 * 1024));
    await until(async () => (await redis.set('bench-probe', '1').catch((e: Error) => e.name)) === 'ReplyError', 10_000, 'writes refused');
    const fullAt = Date.now();
    const linesAtFull = lines().length;
    const cpuAtFull = processCpuMs(worker.pid);
    const createdAtFull = sandbox.admin.counters().creates.order;
    feed.append('orders', during);
    await until(async () => (await readyz()).status === 503, 10_000, '/readyz to say not ready');
    const readyzWhileFull = await readyz();
    const metrics = await (await fetch(`${url}/metrics`)).text();
    const gauge = /^isync_redis_writes_refused_seconds (\d+)$/m.exec(metrics)?.[1];
    await sleep(Math.max(0, holdMs - (Date.now() - fullAt)));
    const full = lines().slice(linesAtFull);
    const cpuAtRaise = processCpuMs(worker.pid);
    const createdWhileFull = sandbox.admin.counters().creates.order - createdAtFull;

    await redis.config('SET', 'maxmemory', '0');
    const raisedAt = Date.now();
    log(`raised after ${Math.round((raisedAt - fullAt) / 1000)} s`);
    await until(() => during.some((r) => settledOnce(sandbox, r.orderId)), 60_000, 'an order synced after the raise');
    const msToFirstOrder = Date.now() - raisedAt;
    await until(() => during.every((r) => settledOnce(sandbox, r.orderId)), 60_000, 'every order synced after the raise');
    const msToAllOrders = Date.now() - raisedAt;
    await until(async () => (await readyz()).status === 200, 10_000, '/readyz ready again');
    const readyAfter = (await readyz()).status;

    const byReason: Record<string, number> = {};
    for (const l of full) {
      const parsed = l.startsWith('{') ? (JSON.parse(l) as { reason?: string; msg?: string }) : { msg: l };
      const key = parsed.reason ?? parsed.msg ?? l;
      byReason[key] = (byReason[key] ?? 0) + 1;
    }
    const all = [...before, ...during];
    return {
      heldSeconds: Math.round((raisedAt - fullAt) / 1000),
      linesWhileFull: full.length,
      linesPerMinute: Math.round((full.length * 60_000) / (raisedAt - fullAt)),
      cpuPercentWhileFull:
        cpuAtFull === undefined || cpuAtRaise === undefined
          ? undefined
          : Math.round(((cpuAtRaise - cpuAtFull) * 100) / (raisedAt - fullAt)),
      byReason,
      readyzWhileFull,
      gaugeWhileFull: gauge === undefined ? undefined : Number(gauge),
      createdWhileFull,
      msToFirstOrder,
      msToAllOrders,
      readyAfter,
      orders: all.length,
      notOnce: all.filter((r) => !settledOnce(sandbox, r.orderId)).map((r) => r.orderId),
      ordersCreated: sandbox.admin.counters().creates.order,
      alerts,
      workerExit: await worker.stop(),
    };
  } catch (err) {
    throw new Error(`${(err as Error).message}; the worker's last lines:\n${lines().slice(-20).join('\n')}`);
  } finally {
    await worker.kill();
    hook.close();
    await feed.close();
    await sandbox.close();
    redis.disconnect();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? Number(process.argv[i + 1]) : undefined;
  };
  const f = await runRedisFull({ holdSeconds: arg('hold'), during: arg('orders'), log: console.log });
  console.log(JSON.stringify(f, null, 2));
}
