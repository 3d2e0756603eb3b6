import type { Mapping } from '../../config/mapping-file.js';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { Queue } from 'bullmq';
import express, { type NextFunction, type Request, type Response } from 'express';
import { defaults } from '../../config/defaults.js';
import type { RedisConnection as Redis } from '../redis/connection.js';
import type { Budgets } from '../../config/read-config.js';
import { batchForBoard } from '../ops/batch-info.js';
import { openStreamQueues, type StreamQueues } from '../queue/stream-queues.js';
import type { Logger } from '../log/logger.js';
import { sessionAuth, weakPasswordProblem, type Credentials, type SessionAuthOptions } from './auth.js';
import type { DashboardLimits } from './auth.js';
import { assetRoutes, loadAssets } from './dashboard-assets.js';
import { isLoopback } from '../net/loopback.js';
import { ownOrigin, requestGuard } from './request-guard.js';
import { jobRoutes } from './job-routes.js';
import { opsRoutes } from './ops-routes.js';
import type { Kind } from '../kinds/kind.js';
import type { Repairer } from '../ops/repair-report.js';

export interface DashboardOptions {
  /** The kinds of job (the composition root's list). */
  kinds: readonly Kind[];
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** A connection the dashboard may share; left open on close. */
  redis: Redis;
  prefix: string;
  /** The login; null serves without one, which is allowed on a loopback host only. */
  auth: Credentials | null;
  /** The request budgets, to show how much of each is in use. */
  budgets?: Budgets;
  /**
   * The origin users open through a reverse proxy (DASHBOARD_PUBLIC_URL): its host name is served besides the
   * bound one, and with https the session cookie is Secure. Default: none.
   */
  publicUrl?: string;
  /** Sessions and login limits. Default: defaults.dashboard. */
  limits?: Partial<DashboardLimits>;
  /** Epoch ms now, for sessions and login limits. Default: Date.now. */
  now?: () => number;
  /** Queues shown in bull-board besides the streams (e.g. the control queue of scheduled pulls). */
  extraQueues?: string[];
  logger?: Logger;
  /** The service's base URL, to link the entities `find` and reconcile name. */
  serviceBaseUrl?: string;
  /** The lag over which `worker` alerts (ALERT_LAG_SECONDS), drawn on the charts. */
  lagLimitSeconds?: number;
  /** MAPPING_FILE, to show the service's names beside a record's in `find`. */
  mapping?: Mapping;
  /** Runs repairs from the reconcile page; none: the page plans them and has no button. */
  repair?: Repairer;
}

export interface Dashboard {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Thrown when asked to serve without a login, or with a short password, on a host other machines can reach. */
export class UnsafeDashboardError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsafeDashboardError';
  }
}

/** bull-board for the queues plus the program's own overview and job pages, behind a login. */
export async function startDashboard(o: DashboardOptions): Promise<Dashboard> {
  refuseUnsafe(o);
  const assets = await loadAssets();
  const queues = openStreamQueues(o.redis, o.prefix, o.kinds);
  const extra = (o.extraQueues ?? []).map((name) => new Queue(name, { connection: o.redis, prefix: o.prefix }));
  // Unheard, BullMQ prints connection errors raw, past the logger; requests still fail on their own.
  for (const q of extra) q.on('error', () => undefined);
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);

  // Secrets stay out of answers at their source (job data, errors, pages); nothing rewrites bodies afterwards,
  // which would tell a guesser where a guess equals a secret.
  app.use(requestGuard({ host: o.host, publicUrl: o.publicUrl, logger: o.logger }));

  const signedIn = Boolean(o.auth);
  const auth = o.auth ? await sessionAuth(authOptions(o, o.auth)) : undefined;
  // The stylesheet and the charts' script: the login page needs the one, and neither holds anything secret.
  app.use(assetRoutes(assets));
  if (auth) {
    app.use(auth.routes);
    app.use(auth.guard);
  }
  app.use(express.urlencoded({ extended: false, limit: '16kb' }));
  app.use('/queues', boardRouter(queues, extra));

  const { budgets, serviceBaseUrl, lagLimitSeconds, mapping, logger } = o;
  app.use(jobRoutes({ redis: o.redis, queues, prefix: o.prefix, signedIn, budgets, logger }));
  app.use(
    opsRoutes({
      kinds: o.kinds,
      redis: o.redis,
      queues,
      prefix: o.prefix,
      signedIn,
      budgets,
      serviceBaseUrl,
      lagLimitSeconds,
      mapping,
      logger,
      repair: o.repair,
    }),
  );
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    o.logger?.error({ err }, 'dashboard: request failed');
    // The reason goes to the log only: an error's text comes from libraries and is not the dashboard's to show.
    res.status(500).type('text').send('error: the dashboard could not answer; its log says why\n');
  });

  const server = await listen(app, o.port, o.host).catch(async (err: unknown) => {
    await queues.close();
    await Promise.all(extra.map((q) => q.close()));
    throw err;
  });
  return served(server, o.host, async () => {
    await queues.close();
    await Promise.all(extra.map((q) => q.close()));
  });
}

/** Refuses to serve without a login, or with a short password, where other machines can reach the dashboard. */
function refuseUnsafe(o: DashboardOptions): void {
  if (!o.auth && !isLoopback(o.host)) {
    throw new UnsafeDashboardError(
      `the dashboard needs DASHBOARD_USER and DASHBOARD_PASSWORD when bound to ${o.host}; --no-auth is allowed on 127.0.0.1 only`,
    );
  }
  const weak = o.auth && weakPasswordProblem(o.host, o.auth.password);
  if (weak) throw new UnsafeDashboardError(weak);
}

function authOptions(o: DashboardOptions, credentials: Credentials): SessionAuthOptions {
  return {
    credentials,
    limits: { ...defaults.dashboard, ...o.limits },
    redis: o.redis,
    prefix: o.prefix,
    secureCookie: o.publicUrl?.startsWith('https:') ?? false,
    originOf: (req) => ownOrigin(req, o.publicUrl),
    now: o.now ?? Date.now,
    logger: o.logger,
  };
}

/** bull-board over every stream's queue, its import batches' queue and the extra queues. */
function boardRouter(queues: StreamQueues, extra: readonly Queue[]): express.Router {
  const board = new ExpressAdapter();
  board.setBasePath('/queues');
  const intakeAdapters = queues.allIntake().map(([stream, q]) => {
    const adapter = new BullMQAdapter(q, { description: `import batches of ${stream}: each becomes one ${stream} job per record` });
    // A batch's data is up to 1,000 records (4 MiB): the board shows what it holds, not every record's text.
    adapter.setFormatter('data', batchForBoard);
    return adapter;
  });
  const adapters = [...queues.all().map(([, q]) => new BullMQAdapter(q)), ...intakeAdapters, ...extra.map((q) => new BullMQAdapter(q))];
  // @bull-board/express carries its own copy of @bull-board/api (a patch version apart): same shape, other declarations.
  const serverAdapter = board as unknown as Parameters<typeof createBullBoard>[0]['serverAdapter'];
  createBullBoard({ queues: adapters, serverAdapter, options: { uiConfig: { boardTitle: 'inventory-sync' } } });
  return board.getRouter() as express.Router;
}

function listen(app: express.Express, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const s = app.listen(port, host, (err?: Error) => (err ? reject(err) : resolve(s)));
  });
}

/** The dashboard as its caller holds it: where it is, and a close that ends its connections and then `closeQueues`. */
function served(server: Server, bound: string, closeQueues: () => Promise<void>): Dashboard {
  const port = (server.address() as AddressInfo).port;
  const host = bound.includes(':') ? `[${bound}]` : bound;
  return {
    url: `http://${host}:${port}`,
    port,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await closeQueues();
    },
  };
}
