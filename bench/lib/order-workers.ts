/**
 * The order workers of one process: the real client (with the account's shared budget when one is given),
 * catalog and runner. Defaults are production-like, for the benchmarks; the crash test passes short retries
 * and locks. Settings are plain JSON so a parent process can hand them over in an env variable.
 */
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import type { Budgets, Config } from '../../config/read-config.js';
import { orderJob } from '../../jobs/order-sync.js';
import { Catalog } from '../../src/catalog/catalog.js';
import { RequestBudget } from '../../src/client/budget.js';
import { ServiceClient } from '../../src/client/service-client.js';
import { createLogger } from '../../src/logger.js';
import { startWorkers, type StartWorkersOptions } from '../../src/queue/worker-pool.js';
import { createRedis, redisKeys } from '../../src/redis.js';

export interface OrderWorkerSettings {
  redisUrl: string;
  prefix: string;
  baseUrl: string;
  account: string;
  key: string;
  secret: string;
  /** Jobs at once in this process. */
  concurrency: number;
  /**
   * Budgets a minute shared by every process (Budgets of config/read-config.ts): POST and GET, and the total every
   * request spends (INVENTORY_REQUESTS_PER_MINUTE) when the account has one. None: unlimited.
   */
  budget?: Pick<Budgets, 'postPerMinute' | 'getPerMinute' | 'requestsPerMinute'>;
  /** HTTP connections to the service. Default: twice the concurrency, at most 64. */
  connections?: number;
  /** ioredis auto-pipelining on the jobs' shared connection (not what buildDeps does today). Default false. */
  autoPipelining?: boolean;
  /** pino level; lines go to /dev/null. Default 'info' (one line a job), so the figures include the logging. */
  logLevel?: string;
  /** Client read retries and the first delay between them, ms. Default: the client's. */
  readRetries?: number;
  retryMinDelayMs?: number;
  /** Age after which the catalog is read again, s. Default 300. */
  catalogRefreshSeconds?: number;
  /** Over the production-like job settings (12 attempts, 2 s to 10 min apart). */
  jobs?: Partial<Config['jobs']>;
  /** Lock settings of the pool: short ones let another process take back a killed one's jobs within seconds. Default: the pool's. */
  locks?: Pick<StartWorkersOptions, 'lockDurationMs' | 'stalledIntervalMs' | 'processor'>;
}

export interface RunningWorkers {
  close(): Promise<void>;
}

export async function startOrderWorkers(s: OrderWorkerSettings): Promise<RunningWorkers> {
  // As src/app/build-deps.ts wires it, unless auto-pipelining is asked for (batches one tick's commands into one write).
  const redis: Redis = createRedis(s.redisUrl, s.autoPipelining ? { enableAutoPipelining: true } : {});
  const keys = redisKeys(s.prefix);
  const logger = createLogger({ level: s.logLevel ?? 'info', pretty: false, destination: pino.destination({ dest: '/dev/null', sync: false }) });
  const budget = s.budget
    ? new RequestBudget({ redis, keys, budgets: { ...s.budget, collectionPerHour: 300, headroom: 0.98 } })
    : undefined;
  const client = new ServiceClient({
    baseUrl: s.baseUrl,
    account: s.account,
    apiKey: s.key,
    apiSecret: s.secret,
    budget,
    connections: s.connections ?? Math.min(64, s.concurrency * 2),
    readRetries: s.readRetries,
    retryMinDelayMs: s.retryMinDelayMs,
  });
  const catalog = new Catalog({ client, redis, keys, refreshSeconds: s.catalogRefreshSeconds ?? 300, logger });
  const jobs = { attempts: 12, retryBaseDelayMs: 2_000, retryMaxDelayMs: 600_000, varianceChunkSize: 500, feedPageSize: 500, ...s.jobs, concurrency: s.concurrency };
  const pool = await startWorkers({
    kinds: [orderJob],
    connection: s.redisUrl,
    prefix: s.prefix,
    deps: { client, catalog, redis, keys, logger, jobs },
    concurrency: s.concurrency,
    logger,
    ...s.locks,
  });
  return {
    async close() {
      await pool.close(2_000);
      await client.close();
      redis.disconnect();
    },
  };
}
