import type { Mapping } from '../../config/mapping-file.js';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { Queue } from 'bullmq';
import express, { type Router } from 'express';
import type { Budgets } from '../../config/read-config.js';
import { batchForBoard } from '../ops/batch-info.js';
import { startFlowSampler } from '../ops/flow-metrics.js';
import { defaults } from '../../config/defaults.js';
import type { Repairer } from '../ops/repair-report.js';
import { openStreamQueues, type StreamQueues } from '../queue/stream-queues.js';
import type { RedisConnection as Redis } from '../redis/connection.js';
import type { Logger } from '../log/logger.js';
import type { Kind } from '../kinds/kind.js';
import { jobRoutes } from './job-routes.js';
import type { AccountPicker } from './layout.js';
import { opsRoutes } from './ops-routes.js';

/** What one account's pages need: its prefix and the settings of its own (ACCOUNTS_FILE's, or the environment's). */
export interface AccountSiteOptions {
  kinds: readonly Kind[];
  redis: Redis;
  prefix: string;
  signedIn: boolean;
  budgets?: Budgets;
  /** An account of ACCOUNTS_FILE: where the deployment's workers say they run. */
  deploymentWorkers?: string;
  /** An account of ACCOUNTS_FILE: the keys of the minutes its deployment ran, for its charts (src/ops/flow-minutes.ts). */
  ranMinutes?: readonly string[];
  /** Queues of scheduled runs shown in bull-board besides the streams (the control queue), while a scheduler is on one. */
  extraQueues?: readonly string[];
  logger?: Logger;
  serviceBaseUrl?: string;
  lagLimitSeconds?: number;
  mapping?: Mapping;
  repair?: Repairer;
  /** Where the account's pages are: '' (one account) or `/a/NAME`. */
  base: string;
  /** ACCOUNTS_FILE's accounts, for the pages' picker. */
  accounts?: () => AccountPicker;
}

/** One account's part of the dashboard, mounted at its `base`: bull-board, the overview, job, find and reconcile pages. */
export interface AccountSite {
  router: Router;
  queues: StreamQueues;
  close(): Promise<void>;
}

/** Opens an account's queues and routes; `close` closes the queues (the connection is the caller's). */
export function openAccountSite(o: AccountSiteOptions): AccountSite {
  const queues = openStreamQueues(o.redis, o.prefix, o.kinds);
  const extra = (o.extraQueues ?? []).map((name) => new Queue(name, { connection: o.redis, prefix: o.prefix }));
  // Unheard, BullMQ prints connection errors raw, past the logger; requests still fail on their own.
  for (const q of extra) q.on('error', () => undefined);
  const router = express.Router();
  router.use('/queues', boardRouter(queues, extra, o.base));
  const { redis, prefix, signedIn, budgets, logger, base, accounts, deploymentWorkers, ranMinutes } = o;
  router.use(jobRoutes({ redis, queues, prefix, signedIn, budgets, logger, base, accounts, deploymentWorkers, ranMinutes }));
  const { kinds, serviceBaseUrl, lagLimitSeconds, mapping, repair } = o;
  router.use(
    opsRoutes({
      kinds,
      redis,
      queues,
      prefix,
      signedIn,
      budgets,
      serviceBaseUrl,
      lagLimitSeconds,
      mapping,
      logger,
      repair,
      base,
      accounts,
      ranMinutes,
    }),
  );
  // The charts and the budget table read samples: while no worker takes them (none of the account's, or of its
  // deployment's: their sweep samples it between turns), this dashboard does.
  const sampler = startFlowSampler(o.redis, o.prefix, queues.names, defaults.flowSampleSeconds * 1000, () => undefined, {
    unlessWorker: true,
    deploymentWorkers,
  });
  return {
    router,
    queues,
    async close() {
      await sampler.stop();
      await queues.close();
      await Promise.all(extra.map((q) => q.close()));
    },
  };
}

/**
 * The control queue of scheduled pulls on the board only while a job scheduler is on it (a stream pulled on a cron):
 * then a worker is meant to listen on it, and bull-board's "No workers" tells the truth. A stream pulled on an interval
 * is ticked by each worker itself, with no job and nothing listening on this queue: shown then, the board would say
 * "No workers" in amber of a queue no worker is meant to take (the overview's "Scheduled runs" tells every schedule).
 */
function scheduledRunsAdapter(q: Queue): BullMQAdapter {
  const adapter = new BullMQAdapter(q, { description: 'scheduled pulls of the streams pulled on a cron' });
  adapter.setVisibilityGuard(async () => (await q.getJobSchedulersCount().catch(() => 1)) > 0);
  return adapter;
}

/**
 * bull-board over every stream's queue, its import batches' queue and the extra queues, served at `{base}/queues`; its
 * header links back to the account's overview, find and reconcile pages (the overview links to it).
 */
function boardRouter(queues: StreamQueues, extra: readonly Queue[], base: string): express.Router {
  const board = new ExpressAdapter();
  board.setBasePath(`${base}/queues`);
  const intakeAdapters = queues.allIntake().map(([stream, q]) => {
    const adapter = new BullMQAdapter(q, { description: `import batches of ${stream}: each becomes one ${stream} job per record` });
    // A batch's data is up to 1,000 records (4 MiB): the board shows what it holds, not every record's text.
    adapter.setFormatter('data', batchForBoard);
    return adapter;
  });
  const adapters = [...queues.all().map(([, q]) => new BullMQAdapter(q)), ...intakeAdapters, ...extra.map(scheduledRunsAdapter)];
  // @bull-board/express carries its own copy of @bull-board/api (a patch version apart): same shape, other declarations.
  const serverAdapter = board as unknown as Parameters<typeof createBullBoard>[0]['serverAdapter'];
  const miscLinks = [
    { text: '← Overview', url: `${base}/` },
    { text: 'Reconcile', url: `${base}/reconcile` },
  ];
  createBullBoard({
    queues: adapters,
    serverAdapter,
    options: { uiConfig: { boardTitle: 'inventory-sync', miscLinks, hideDocsLink: true } },
  });
  return board.getRouter() as express.Router;
}
