import type { Mapping } from '../../config/mapping-file.js';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import { defaults } from '../../config/defaults.js';
import type { RedisConnection as Redis } from '../redis/connection.js';
import type { Budgets } from '../../config/read-config.js';
import type { Logger } from '../log/logger.js';
import { sessionAuth, weakPasswordProblem, type Credentials, type SessionAuthOptions } from './auth.js';
import type { DashboardLimits } from './auth.js';
import { assetRoutes, loadAssets } from './dashboard-assets.js';
import { isLoopback } from '../net/loopback.js';
import { ownOrigin, requestGuard } from './request-guard.js';
import { openAccountSite } from './account-site.js';
import { accountsRoutes, type DashboardAccounts } from './accounts-routes.js';
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
  /** The account's prefix; with `accounts`, the deployment's (QUEUE_PREFIX): its sessions and login counts only. */
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
  /** Queues of scheduled runs shown in bull-board besides the streams (the control queue), while a scheduler is on one. */
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
  /**
   * ACCOUNTS_FILE's accounts: `/` shows them all and each one's pages are under `/a/NAME/`, with that account's own
   * prefix and settings (the fields above from `budgets` on are then not used). None: one account's pages at `/`.
   */
  accounts?: DashboardAccounts;
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
  const { kinds, redis, extraQueues, logger } = o;
  const pages = o.accounts
    ? accountsRoutes({ accounts: o.accounts, prefix: o.prefix, kinds, redis, signedIn, extraQueues, logger })
    : openAccountSite({ ...o, accounts: undefined, signedIn, base: '' });
  app.use(pages.router);
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    o.logger?.error({ err }, 'dashboard: request failed');
    // The reason goes to the log only: an error's text comes from libraries and is not the dashboard's to show.
    res.status(500).type('text').send('error: the dashboard could not answer; its log says why\n');
  });

  const server = await listen(app, o.port, o.host).catch(async (err: unknown) => {
    await pages.close();
    throw err;
  });
  return served(server, o.host, () => pages.close());
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
