import { Writable } from 'node:stream';
import type { Redis } from 'ioredis';
import type { Config } from '../../config/read-config.js';
import type { CatalogApi } from '../../src/catalog/types.js';
import type { ServiceClient } from '../../src/client/service-client.js';
import { createLogger, type Logger } from '../../src/log/logger.js';
import { kindOf } from '../../src/records/records.js';
import type { JobContext, JobResult } from '../../src/queue/job-context.js';
import { pullStream, type PullStreamOptions } from '../../src/feed/producer.js';
import type { RunnerDeps } from '../../src/queue/job-runner.js';
import type { QueueSet } from '../../src/queue/queues.js';
import { buildDeps } from '../../src/app/build-deps.js';
import { sandboxConfig } from '../../src/app/sandbox-config.js';
import { programKinds } from '../../jobs/kinds.js';
import type { StreamName } from '../../src/records/stream-name.js';
import { startWorkers, type StartWorkersOptions, type WorkerPool } from '../../src/queue/worker-pool.js';
import { createRedis, type RedisKeys } from '../../src/redis/connection.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { deletePrefix, redisUrl, uniquePrefix } from '../helpers/redis.js';
import { orderKind } from '../../jobs/orders/order-kind.js';
import type { Kind } from '../../src/kinds/kind.js';

/** A logger whose JSON lines the test can read back. */
export function captureLogger(): { logger: Logger; lines: () => Array<Record<string, unknown>> } {
  const raw: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      raw.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const logger = createLogger({ level: 'debug', destination, pretty: false });
  return { logger, lines: () => raw.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

/** Small retry delays so retries happen within a test. */
export const fastJobs: Config['jobs'] = {
  attempts: 3,
  retryBaseDelayMs: 50,
  retryMaxDelayMs: 200,
  concurrency: 4,
  varianceChunkSize: 500,
  feedPageSize: 100,
};

/** The tests' kinds do not use the catalog; any use is a test bug and says so. */
export const unusedCatalog: CatalogApi = new Proxy({} as CatalogApi, {
  get: (_t, prop) => () => Promise.reject(new Error(`catalog.${String(prop)} is not used in this test`)),
});

export interface QueueWorld {
  redis: Redis;
  url: string;
  prefix: string;
  keys: RedisKeys;
  queues: QueueSet;
  logger: Logger;
  logLines: () => Array<Record<string, unknown>>;
  sandbox: Sandbox;
  client: ServiceClient;
  deps: RunnerDeps;
  /** Real workers for the kinds on this world's prefix, with its deps and logger (2 jobs at once unless told). */
  startPool(kinds: Kind[], o?: Partial<Omit<StartWorkersOptions, 'kinds'>>): Promise<WorkerPool>;
  close(): Promise<void>;
}

/**
 * Waits until the queues' first meta write (BullMQ does it once connected) is done, so that it cannot land after
 * the test has deleted its prefix.
 */
export async function settleMeta(queues: QueueSet): Promise<void> {
  const all = queues.streams().flatMap((s) => [queues.get(s), queues.intake(s)]);
  await Promise.all(all.map((q) => q.waitUntilReady()));
  // The meta write is sent right after readiness on the same connection; a command queued now answers after it.
  await Promise.all(all.map(async (q) => (await q.getBackend().client).get('ping')));
}

/**
 * A fresh prefix on the real Redis (or on `url`, a test's own redis-server), the stream queues, an empty sandbox and
 * a real client for it.
 */
export async function queueWorld(name: string, jobs: Config['jobs'] = fastJobs, url = redisUrl()): Promise<QueueWorld> {
  const redis = createRedis(url);
  const prefix = uniquePrefix(name);
  const { logger, lines } = captureLogger();
  const sandbox = await startSandbox({ data: 'empty' });
  const config = sandboxConfig(sandbox, { redis: url, prefix, jobs, service: { readRetries: 0 } });
  const built = buildDeps(config, logger, { redis, budget: false, catalog: unusedCatalog, kinds: programKinds });
  const { client, keys, queues } = built;
  await settleMeta(queues);
  const deps: RunnerDeps = { client, catalog: unusedCatalog, redis, keys, logger, jobs };
  return {
    redis,
    url,
    prefix,
    keys,
    queues,
    logger,
    logLines: lines,
    sandbox,
    client,
    deps,
    startPool: (kinds, o = {}) => startWorkers({ kinds, connection: url, prefix, deps, concurrency: 2, logger, ...o }),
    async close() {
      await built.close();
      await sandbox.close();
      await deletePrefix(redis, prefix);
      redis.disconnect();
    },
  };
}

/** A test-only kind of a stream: the feed's own record shape; `run` decides what processing does. */

export function testKind(stream: StreamName, run: (record: any, ctx: JobContext) => Promise<JobResult>): Kind<any> {
  // The stream's own definition (key, schema, schedule), with the test's processing and no preview.
  const kind = kindOf(programKinds, stream) as Kind<any>;
  return { ...kind, job: { ...kind.job, process: run, preview: undefined } };
}

export const done = (summary = 'done'): JobResult => ({ outcome: 'synced', summary });

/** A valid order record of the feed. */
export function order(orderId: string, quantity = 1): Record<string, unknown> {
  return {
    orderId,
    origin: 'Main Warehouse',
    lines: [{ productId: 'MUG-BLUE', quantity, unitPrice: 12.5, location: 'Main Warehouse / A-01' }],
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One pull of the world's orders stream from `upstream` (pages of 100 unless told). */
export function pullOrders(w: QueueWorld, upstream: PullStreamOptions['upstream'], over: Partial<PullStreamOptions> = {}) {
  return pullStream({
    kind: orderKind,
    upstream,
    queue: w.queues.get('orders'),
    redis: w.redis,
    keys: w.keys,
    pageSize: 100,
    logger: w.logger,
    ...over,
  });
}
