/**
 * Per-job overhead with no budget and no latency: one worker process (bench/orders-worker.ts: the real runner,
 * order job and client) against the sandbox in this process. Orders a second, and CPU a job of the worker
 * process and of the sandbox, measured from /proc between the first job queued and the last completed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildDeps } from '../../src/app/build-deps.js';
import { sandboxConfig } from '../../src/app/sandbox-config.js';
import { createLogger } from '../../src/log/logger.js';
import { addJobs, recordJob } from '../../src/queue/record-jobs.js';
import { createRedis, deleteKeysUnder } from '../../src/redis/connection.js';
import type { SandboxProfile } from '../../src/sandbox/sandbox-options.js';
import { startSandbox } from '../../src/sandbox/sandbox.js';
import { benchOrders } from './order-records.js';
import { ownCpuMs, processCpuMs } from './proc-cpu.js';
import { median } from './median.js';
import { orderKind } from '../../jobs/orders/order-kind.js';

const WORKER = fileURLToPath(new URL('../orders-worker.ts', import.meta.url));

export interface OverheadRun {
  ordersPerSecond: number;
  workerCpuMsPerJob: number | null;
  /** The sandbox and the job producer, which share this process. */
  sandboxCpuMsPerJob: number;
}

export interface OverheadFigures {
  orders: number;
  concurrency: number;
  runs: OverheadRun[];
  medianOrdersPerSecond: number;
  medianWorkerCpuMsPerJob: number | null;
  medianSandboxCpuMsPerJob: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function spawnWorker(env: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER], {
    env: { ...process.env, ORDERS_WORKER: env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve(child));
    child.once('exit', (code) => reject(new Error(`bench worker exited with ${code} before it was ready`)));
  });
}

async function oneRun(n: number, concurrency: number, redisUrl: string, run: number, profile?: SandboxProfile): Promise<OverheadRun> {
  const sandbox = await startSandbox({ data: 'demo', profile });
  const redis = createRedis(redisUrl);
  const prefix = `bench-overhead-${process.pid}-${run}`;
  const deps = buildDeps(
    sandboxConfig(sandbox, { redis: redisUrl, prefix, catalogRefreshSeconds: 300 }),
    createLogger({ level: 'silent' }),
    {
      redis,
      budget: false,
      kinds: [orderKind],
      streams: ['orders'],
    },
  );
  const { queues } = deps;
  await deps.catalog.refresh();
  const settings = {
    redis: redisUrl,
    prefix,
    baseUrl: sandbox.url,
    account: sandbox.account,
    key: sandbox.key,
    secret: sandbox.secret,
    concurrency,
  };
  let child: ChildProcess | undefined;
  try {
    child = await spawnWorker(JSON.stringify(settings));
    await sleep(500);
    const w0 = processCpuMs(child.pid!);
    const s0 = ownCpuMs();
    const a0 = sandbox.admin.counters().actions;
    const t0 = performance.now();
    const records = benchOrders(`OVH-${run}-${Date.now()}`, n);
    for (let i = 0; i < n; i += 1000)
      await addJobs(
        queues.get('orders'),
        redis,
        records.slice(i, i + 1000).map((r) => recordJob(orderKind, r, 'feed').job),
        orderKind,
      );
    while (sandbox.admin.counters().actions - a0 < n) await sleep(5);
    const s = (performance.now() - t0) / 1000;
    const w1 = processCpuMs(child.pid!);
    return {
      ordersPerSecond: Math.round(n / s),
      workerCpuMsPerJob: w0 === undefined || w1 === undefined ? null : Math.round(((w1 - w0) / n) * 100) / 100,
      sandboxCpuMsPerJob: Math.round(((ownCpuMs() - s0) / n) * 100) / 100,
    };
  } finally {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGTERM');
      const t = setTimeout(() => child!.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(t);
    }
    await queues
      .get('orders')
      .obliterate({ force: true })
      .catch(() => undefined);
    await deps.close();
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
    await sandbox.close();
  }
}

export async function runOverheadBench(
  o: { orders?: number; runs?: number; concurrency?: number; redisUrl?: string; profile?: SandboxProfile; log?: (l: string) => void } = {},
): Promise<OverheadFigures> {
  const n = o.orders ?? 3000;
  const concurrency = o.concurrency ?? 64;
  const runs: OverheadRun[] = [];
  for (let i = 0; i < (o.runs ?? 3); i++) {
    const r = await oneRun(n, concurrency, o.redisUrl ?? 'redis://127.0.0.1:6379', i, o.profile);
    runs.push(r);
    o.log?.(
      `  overhead run ${i + 1}: ${r.ordersPerSecond} orders/s, worker ${r.workerCpuMsPerJob} ms CPU/job, sandbox ${r.sandboxCpuMsPerJob} ms CPU/job`,
    );
  }
  const workerCpu = runs.map((r) => r.workerCpuMsPerJob).filter((x): x is number => x !== null);
  return {
    orders: n,
    concurrency,
    runs,
    medianOrdersPerSecond: median(runs.map((r) => r.ordersPerSecond)),
    medianWorkerCpuMsPerJob: workerCpu.length ? median(workerCpu) : null,
    medianSandboxCpuMsPerJob: median(runs.map((r) => r.sandboxCpuMsPerJob)),
  };
}
