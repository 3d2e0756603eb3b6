import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Budgets, Config } from '../../config/read-config.js';
import { orderJob } from '../../jobs/order-sync.js';
import { Catalog } from '../../src/catalog/catalog.js';
import { RequestBudget } from '../../src/client/budget.js';
import { ServiceClient } from '../../src/client/service-client.js';
import { createLogger } from '../../src/logger.js';
import { waitForIdle } from '../../src/queue/drain.js';
import type { JobResult } from '../../src/queue/job-kind.js';
import type { RunnerDeps } from '../../src/queue/job-runner.js';
import { createQueues, type JobData, type QueueSet } from '../../src/queue/queues.js';
import { addJobs, recordJob } from '../../src/queue/record-jobs.js';
import { startWorkers, type WorkerPool } from '../../src/queue/worker-pool.js';
import { redisKeys, type RedisKeys } from '../../src/redis.js';
import type { SandboxState } from '../../src/sandbox/sandbox-entities.js';
import type { SandboxOptions } from '../../src/sandbox/sandbox-options.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { connect, deletePrefix, redisUrl, uniquePrefix } from '../helpers/redis.js';

/** Short retry delays so retries happen within a test. */
export const testJobs: Config['jobs'] = {
  attempts: 5,
  retryBaseDelayMs: 50,
  retryMaxDelayMs: 300,
  concurrency: 8,
  varianceChunkSize: 500,
  feedPageSize: 100,
};

export interface OrderWorld {
  sandbox: Sandbox;
  redis: Redis;
  prefix: string;
  keys: RedisKeys;
  client: ServiceClient;
  queues: QueueSet;
  deps: RunnerDeps;
  pool?: WorkerPool;
  /** Starts the order workers of this process (done by orderWorld unless workers: false). */
  startWorkers(): Promise<WorkerPool>;
  /** Queues records as the producers do (one job per distinct record; a repeat is a no-op). */
  add(records: unknown[]): Promise<{ queued: number; duplicates: number }>;
  idle(timeoutMs?: number): Promise<void>;
  jobs(): Promise<Array<Job<JobData, JobResult>>>;
  close(): Promise<void>;
}

export interface OrderWorldOptions {
  sandbox?: SandboxOptions;
  /** A budget on the client, shared through Redis. Default: none. */
  budgets?: Partial<Budgets>;
  jobs?: Partial<Config['jobs']>;
  /** Start the workers now. Default true. */
  workers?: boolean;
}

/** The real parts: the sandbox with demo data on port 0, a fresh Redis prefix, the client, catalog and runner. */
export async function orderWorld(name: string, o: OrderWorldOptions = {}): Promise<OrderWorld> {
  const sandbox = await startSandbox({ data: 'demo', ...o.sandbox });
  const redis = connect();
  const prefix = uniquePrefix(name);
  const keys = redisKeys(prefix);
  const jobs = { ...testJobs, ...o.jobs };
  const logger = createLogger({ level: 'silent' });
  const budget = o.budgets
    ? new RequestBudget({ redis, keys, budgets: { postPerMinute: 1e6, getPerMinute: 1e6, collectionPerHour: 1e6, headroom: 1, ...o.budgets } })
    : undefined;
  const client = new ServiceClient({ baseUrl: sandbox.url, account: sandbox.account, apiKey: sandbox.key, apiSecret: sandbox.secret, budget, readRetries: 1, retryMinDelayMs: 20 });
  const catalog = new Catalog({ client, redis, keys, refreshSeconds: 0, logger });
  const queues = createQueues({ connection: redis, prefix, jobs, streams: ['orders'] });
  const deps: RunnerDeps = { client, catalog, redis, keys, logger, jobs };
  const world: OrderWorld = {
    sandbox,
    redis,
    prefix,
    keys,
    client,
    queues,
    deps,
    async startWorkers() {
      world.pool = await startWorkers({ kinds: [orderJob], connection: redisUrl(), prefix, deps, concurrency: jobs.concurrency, logger, processor: { keyBusyDelayMs: 50 } });
      return world.pool;
    },
    add: (records) => addJobs(queues.get('orders'), redis, records.map((r) => recordJob('orders', r, 'feed').job)),
    idle: (timeoutMs = 20_000) => waitForIdle([queues.get('orders')], { pollMs: 50, signal: AbortSignal.timeout(timeoutMs) }),
    jobs: () => queues.get('orders').getJobs(['completed', 'failed', 'waiting', 'active', 'delayed']) as Promise<Array<Job<JobData, JobResult>>>,
    async close() {
      await world.pool?.close(1_000);
      await queues.close();
      await client.close();
      await sandbox.close();
      await deletePrefix(redis, prefix);
      redis.disconnect();
    },
  };
  if (o.workers !== false) await world.startWorkers();
  return world;
}

/** A valid order of the demo account. */
export function orderRecord(orderId: string, lines?: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    orderId,
    origin: 'Main Warehouse',
    lines: lines ?? [
      { productId: 'MUG-BLUE', quantity: 2, unitPrice: 12.5, location: 'Main Warehouse / A-01' },
      { productId: 'SKU-0003', quantity: 1, unitPrice: 4, location: 'A-02' },
    ],
    ...extra,
  };
}

/** What the sandbox holds for one orderId: its orders and the shipments attached to them. */
export function orderState(state: SandboxState, orderId: string) {
  const orders = state.orders.filter((o) => o.orderId === orderId);
  const urls = new Set(orders.map((o) => o.orderUrl));
  const shipments = state.shipments.filter((s) => urls.has(s.primaryOrderUrl));
  return { orders, shipments };
}

/** The attempts' traces of a job (one JSON line per attempt). */
export async function traces(world: OrderWorld, jobId: string): Promise<Array<Record<string, any>>> {
  const { logs } = await world.queues.get('orders').getJobLogs(jobId);
  return logs.map((l) => JSON.parse(l) as Record<string, any>);
}
