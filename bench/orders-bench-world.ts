/** The parts of bench/orders-throughput.ts around the measurement: records, worker processes, a fresh prefix. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildDeps } from '../src/app/build-deps.js';
import { sandboxConfig } from '../src/app/sandbox-config.js';
import { createLogger } from '../src/log/logger.js';
import { addJobs, recordJob } from '../src/queue/record-jobs.js';
import { clusterPrefix, createRedis, deleteKeysUnder, type RedisConnection, type RedisTarget } from '../src/redis/connection.js';
import type { Sandbox } from '../src/sandbox/sandbox.js';
import type { OrderWorkerSettings } from '../test/kit/order-workers.js';
import { orderKind } from '../jobs/orders/order-kind.js';

const WORKER = fileURLToPath(new URL('./orders-worker.ts', import.meta.url));

export { benchOrders as records } from './lib/order-records.js';

export function spawnWorker(settings: OrderWorkerSettings): Promise<ChildProcess> {
  // ORDERS_BENCH_PROFILE=dir writes a CPU profile of each worker process there.
  const prof = process.env.ORDERS_BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.ORDERS_BENCH_PROFILE}`] : [];
  const child = spawn(process.execPath, [...prof, '--import', 'tsx', WORKER], {
    env: { ...process.env, ORDERS_WORKER: JSON.stringify(settings) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve(child));
    child.once('exit', (code) => reject(new Error(`bench worker exited with ${code} before it was ready`)));
  });
}

/** Stops a worker process: SIGTERM, then SIGKILL after 5 s. */
export async function stopWorker(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/** CPU ms Redis has used so far (INFO cpu; of one node, on a cluster). */
export async function redisCpuMs(redis: RedisConnection): Promise<number> {
  const info = await redis.info('cpu');
  const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return (field('used_cpu_user') + field('used_cpu_sys')) * 1000;
}

/** A fresh prefix (in a hash tag on a cluster) with the orders queue and a warm catalog, over the given sandbox. */
export async function setUp(sandbox: Sandbox, target: RedisTarget | string, tag: string) {
  const redis = createRedis(target);
  const name = `bench-orders-${tag}-${process.pid}`;
  const prefix = typeof target !== 'string' && target.clusterNodes ? clusterPrefix(name) : name;
  const deps = buildDeps(sandboxConfig(sandbox, { redis: target, prefix, catalogRefreshSeconds: 300 }), createLogger({ level: 'silent' }), {
    redis,
    budget: false,
    kinds: [orderKind],
    streams: ['orders'],
  });
  const { queues } = deps;
  // Warm the shared catalog so the workers read it from Redis, not from the service.
  await deps.catalog.refresh();
  const settings = (o: Partial<OrderWorkerSettings>): OrderWorkerSettings => ({
    redis: target,
    prefix,
    baseUrl: sandbox.url,
    account: sandbox.account,
    key: sandbox.key,
    secret: sandbox.secret,
    concurrency: 16,
    ...o,
  });
  return {
    redis,
    settings,
    add: async (recs: unknown[]) => {
      for (let i = 0; i < recs.length; i += 1_000) {
        await addJobs(
          queues.get('orders'),
          redis,
          recs.slice(i, i + 1_000).map((r) => recordJob(orderKind, r, 'feed').job),
          orderKind,
        );
      }
    },
    async tearDown() {
      await queues
        .get('orders')
        .obliterate({ force: true })
        .catch(() => undefined);
      await deps.close();
      await deleteKeysUnder(redis, prefix);
      redis.disconnect();
    },
  };
}
