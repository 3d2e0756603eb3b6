/**
 * The order workers of one benchmark process: the real client (with the account's shared budget when one is
 * given), catalog and runner. Run as a child by bench/orders-throughput.ts (settings as JSON in ORDERS_WORKER;
 * prints "ready", stops on SIGTERM), or in-process through startOrderWorkers().
 */
import { pathToFileURL } from 'node:url';
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import { orderJob } from '../jobs/order-sync.js';
import { Catalog } from '../src/catalog/catalog.js';
import { RequestBudget } from '../src/client/budget.js';
import { ServiceClient } from '../src/client/service-client.js';
import { createLogger } from '../src/logger.js';
import { startWorkers } from '../src/queue/worker-pool.js';
import { createRedis, redisKeys } from '../src/redis.js';

export interface OrderWorkerSettings {
  redisUrl: string;
  prefix: string;
  baseUrl: string;
  account: string;
  key: string;
  secret: string;
  /** Jobs at once in this process. */
  concurrency: number;
  /** POST and GET budgets a minute shared by every process; none: unlimited. */
  budget?: { postPerMinute: number; getPerMinute: number };
  /** HTTP connections to the service. */
  connections?: number;
  /** ioredis auto-pipelining on the jobs' shared connection (not what buildDeps does today). Default false. */
  autoPipelining?: boolean;
}

export interface RunningWorkers {
  close(): Promise<void>;
}

export async function startOrderWorkers(s: OrderWorkerSettings): Promise<RunningWorkers> {
  // As src/app/build-deps.ts wires it, unless auto-pipelining is asked for (batches one tick's commands into one write).
  const redis: Redis = createRedis(s.redisUrl, s.autoPipelining ? { enableAutoPipelining: true } : {});
  const keys = redisKeys(s.prefix);
  // Logged as in production (info: one line a job), written to /dev/null so the figures include the logging.
  const logger = createLogger({ level: 'info', pretty: false, destination: pino.destination({ dest: '/dev/null', sync: false }) });
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
  });
  const catalog = new Catalog({ client, redis, keys, refreshSeconds: 300, logger });
  const jobs = { attempts: 12, retryBaseDelayMs: 2_000, retryMaxDelayMs: 600_000, concurrency: s.concurrency, varianceChunkSize: 500, feedPageSize: 500 };
  const pool = await startWorkers({
    kinds: [orderJob],
    connection: s.redisUrl,
    prefix: s.prefix,
    deps: { client, catalog, redis, keys, logger, jobs },
    concurrency: s.concurrency,
    logger,
  });
  return {
    async close() {
      await pool.close(2_000);
      await client.close();
      redis.disconnect();
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const settings = JSON.parse(process.env.ORDERS_WORKER ?? '{}') as OrderWorkerSettings;
  const running = await startOrderWorkers(settings);
  process.once('SIGTERM', () => {
    running.close().finally(() => process.exit(0));
  });
  process.stdout.write('ready\n');
}
