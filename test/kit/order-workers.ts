/**
 * The order workers of one process: the real client (with the account's shared budget when one is given),
 * catalog and runner. Defaults are production-like, for the benchmarks; the crash test passes short retries
 * and locks. Settings are plain JSON so a parent process can hand them over in an env variable.
 */
import { pino } from 'pino';
import { defaults } from '../../config/defaults.js';
import type { Budgets, Config } from '../../config/read-config.js';
import { orderKind } from '../../jobs/orders/order-kind.js';
import { buildDeps } from '../../src/app/build-deps.js';
import { sandboxConfig } from '../../src/app/sandbox-config.js';
import { createLogger } from '../../src/log/logger.js';
import { startWorkers, type StartWorkersOptions } from '../../src/queue/worker-pool.js';
import { createRedis, type RedisConnection, type RedisTarget } from '../../src/redis/connection.js';

export interface OrderWorkerSettings {
  /** Redis URL, or a target with a cluster's seed nodes. */
  redis: RedisTarget | string;
  prefix: string;
  baseUrl: string;
  account: string;
  key: string;
  secret: string;
  /** Jobs at once in this process (with sizedConcurrency: the first size). */
  concurrency: number;
  /** Jobs at once follow the budget's rate and the latency, as the CLI's do without WORKER_CONCURRENCY. Default false (fixed). */
  sizedConcurrency?: boolean;
  /** Share the budget with the account's other clients (INVENTORY_ADAPTIVE_RATE). Default true, as the CLI. */
  adaptiveRate?: boolean;
  /** The slow start's first share, in percent (INVENTORY_RATE_START_PERCENT). Default: the CLI's. */
  startPercent?: number;
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
  /** Where the log lines go instead: 1 for stdout (a test reading them). Default /dev/null. */
  logDestination?: number;
  /** Client read retries and the first delay between them, ms. Default: the client's. */
  readRetries?: number;
  retryMinDelayMs?: number;
  /** Age after which the catalog is read again, s. Default 300. */
  catalogRefreshSeconds?: number;
  /** Over the production-like job settings (12 attempts, 2 s to 10 min apart). */
  jobs?: Partial<Config['jobs']>;
  /** Lock settings of the pool: short ones let another process take back a killed one's jobs within seconds. Default: the pool's. */
  locks?: Pick<StartWorkersOptions, 'lockDurationMs' | 'stalledIntervalMs' | 'drainSeconds' | 'processor'>;
}

export interface RunningWorkers {
  close(): Promise<void>;
}

export async function startOrderWorkers(s: OrderWorkerSettings): Promise<RunningWorkers> {
  // As src/app/build-deps.ts wires it, unless auto-pipelining is asked for (batches one tick's commands into one write).
  const redis: RedisConnection = createRedis(s.redis, s.autoPipelining ? { enableAutoPipelining: true } : {});
  const logger = createLogger({
    level: s.logLevel ?? 'info',
    pretty: false,
    destination: pino.destination({ dest: s.logDestination ?? '/dev/null', sync: s.logDestination !== undefined }),
  });
  const config = sandboxConfig(
    { url: s.baseUrl, account: s.account, key: s.key, secret: s.secret },
    {
      redis: s.redis,
      prefix: s.prefix,
      ...(s.budget ? { budgets: { ...s.budget, collectionPerHour: 300, headroom: 0.98 } } : {}),
      service: {
        ...(s.readRetries === undefined ? {} : { readRetries: s.readRetries }),
        adaptiveRate: {
          enabled: s.adaptiveRate ?? true,
          floorPercent: defaults.rateFloorPercent,
          startPercent: s.startPercent ?? defaults.rateStartPercent,
          startRisePercent: defaults.rateStartRisePercent,
        },
      },
      jobs: {
        attempts: 12,
        retryBaseDelayMs: 2_000,
        retryMaxDelayMs: 600_000,
        varianceChunkSize: 500,
        feedPageSize: 500,
        ...s.jobs,
        concurrency: s.concurrency,
      },
      catalogRefreshSeconds: s.catalogRefreshSeconds ?? 300,
    },
  );
  const deps = buildDeps(config, logger, {
    redis,
    kinds: [orderKind],
    ...(s.budget ? {} : { budget: false as const }),
    client: {
      connections: s.connections ?? Math.min(64, s.concurrency * 2),
      ...(s.retryMinDelayMs === undefined ? {} : { retryMinDelayMs: s.retryMinDelayMs }),
    },
    streams: ['orders'],
  });
  const pool = await startWorkers({
    kinds: [orderKind],
    connection: s.redis,
    prefix: s.prefix,
    deps: { ...deps, jobs: config.jobs },
    concurrency: s.concurrency,
    ...(s.sizedConcurrency && deps.pace
      ? { sizing: { pace: deps.pace, bounds: { min: config.concurrency.min, max: config.concurrency.max } } }
      : {}),
    logger,
    ...s.locks,
  });
  return {
    async close() {
      await pool.close(2_000);
      await deps.close();
      redis.disconnect();
    },
  };
}
