import { isAccountName } from '../../config/accounts.js';
import type { Mapping } from '../../config/mapping-file.js';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { Budgets } from '../../config/read-config.js';
import type { Kind } from '../kinds/kind.js';
import { createLogger, type Logger } from '../log/logger.js';
import { watchRedisWrites } from '../queue/hold/write-probe.js';
import type { GlanceTarget } from '../ops/accounts-glance.js';
import type { Repairer } from '../ops/repair-report.js';
import type { RedisConnection as Redis } from '../redis/connection.js';
import { openAccountSite, type AccountSite } from './account-site.js';
import { accountsBoard, readAsk } from './accounts-board.js';
import { accountBase } from './layout.js';
import { accountsHtml, badRequestHtml, noAccountHtml, noAccountsPageHtml } from './pages.js';

/** One account of ACCOUNTS_FILE as the dashboard shows it: its prefix and its own settings. */
export interface DashboardAccount {
  name: string;
  prefix: string;
  budgets?: Budgets;
  serviceBaseUrl?: string;
  lagLimitSeconds?: number;
  /** Whether it pulls a feed (UPSTREAM_URL): only then does the all-accounts page judge its lag (as `status` does). */
  pulls?: boolean;
  mapping?: Mapping;
  /** Runs the account's repairs from its reconcile page; none: the page plans them and has no button. */
  repair?: Repairer;
  /** Where the deployment's workers say they run (worker-presence.ts's deploymentWorkersOf). */
  deploymentWorkers?: string;
  /** An account of ACCOUNTS_FILE: the keys of the minutes its deployment ran, for its charts (src/ops/flow-minutes.ts). */
  ranMinutes?: readonly string[];
  /** Closes what the caller opened for the account (the deps its repairs ran with) once the dashboard drops it. */
  close?: () => Promise<void>;
}

/** Where the dashboard finds ACCOUNTS_FILE's accounts. */
export interface DashboardAccounts {
  /**
   * The accounts now, in the file's order. Asked on every request, so cheap; answers the same array while nothing
   * changed, and the same object for an account whose settings did not change (its pages stay open).
   */
  current(): readonly DashboardAccount[];
}

export interface AccountsRoutesOptions {
  accounts: DashboardAccounts;
  /** The deployment's prefix (QUEUE_PREFIX): the dashboard's write probe is under it. */
  prefix: string;
  kinds: readonly Kind[];
  redis: Redis;
  signedIn: boolean;
  extraQueues?: readonly string[];
  logger?: Logger;
}

/** A dropped or changed account's old pages close this long after, when the requests they serve have ended. */
const RETIRE_AFTER_MS = 60_000;

type Opened = { account: DashboardAccount; site: AccountSite };

/**
 * Every account of ACCOUNTS_FILE: the all-accounts page at `/` (and `/api/accounts`), a page of them at a time, and
 * each account's own pages under `/a/NAME/`, opened when first asked for and again only when the account changes. An
 * unknown or malformed name answers 404.
 */
export function accountsRoutes(o: AccountsRoutesOptions): { router: Router; close(): Promise<void> } {
  const { site, targets, close } = openAccountSites(o);
  const streams = o.kinds.map((k) => k.stream);
  // Probed with each read of the accounts (and a minute apart besides): the dashboard has no other writes to watch.
  const writes = watchRedisWrites({
    redis: o.redis,
    key: `${o.prefix}:write-probe`,
    logger: o.logger ?? createLogger({ level: 'silent' }),
    everyMs: 60_000,
  });
  const board = accountsBoard({ redis: o.redis, kinds: o.kinds, targets, probeWrites: writes.probe });
  const shell = { signedIn: o.signedIn, accounts: {} };

  const router = express.Router();
  router.get(
    '/',
    wrap(async (req, res) => {
      const ask = readAsk(req.query);
      if ('problem' in ask) return void res.status(400).type('html').send(badRequestHtml(ask.problem, shell));
      const v = await board.view(ask);
      if (v.page > v.pages) return void res.status(404).type('html').send(noAccountsPageHtml(v, shell));
      res.type('html').send(accountsHtml(v, streams, shell));
    }),
  );
  router.get(
    '/api/accounts',
    wrap(async (req, res) => {
      const ask = readAsk(req.query);
      if ('problem' in ask) return void res.status(400).json({ error: ask.problem });
      const v = await board.view(ask);
      if (v.page > v.pages)
        return void res.status(404).json({ error: `page ${v.page}: ${v.matched} accounts make ${v.pages} pages of ${v.size}` });
      res.json(v);
    }),
  );
  router.use('/a/:account', (req: Request, res: Response, next: NextFunction) => {
    const name = String(req.params.account);
    const opened = isAccountName(name) ? site(name) : undefined;
    if (opened) return opened.router(req, res, next);
    if (req.path.startsWith('/api/')) return void res.status(404).json({ error: `no account "${name.slice(0, 40)}": see /api/accounts` });
    res.status(404).type('html').send(noAccountHtml(name, shell));
  });
  return {
    router,
    async close() {
      writes.stop();
      await close();
    },
  };
}

/**
 * The accounts' pages, each opened at its first request (an account nobody looks at costs nothing here), kept up to
 * date with the file's accounts, and old ones closed once retired; and what the all-accounts page reads of each.
 */
function openAccountSites(o: AccountsRoutesOptions): {
  site(name: string): AccountSite | undefined;
  targets(): readonly GlanceTarget[];
  close(): Promise<void>;
} {
  const open = new Map<string, Opened>();
  const retiring = new Set<{ timer: NodeJS.Timeout; opened: Opened }>();
  let last: readonly DashboardAccount[] | undefined;
  let known = new Map<string, DashboardAccount>();
  let targets: readonly GlanceTarget[] = [];

  const closeOpened = async ({ account, site }: Opened) => {
    await site.close();
    await account.close?.();
  };
  const retire = (opened: Opened) => {
    const entry = {
      opened,
      timer: setTimeout(() => {
        retiring.delete(entry);
        closeOpened(opened).catch((err: unknown) =>
          o.logger?.warn({ err, account: opened.account.name }, 'dashboard: an old account page did not close'),
        );
      }, RETIRE_AFTER_MS),
    };
    entry.timer.unref();
    retiring.add(entry);
  };
  const openSite = (account: DashboardAccount): AccountSite =>
    openAccountSite({
      ...account,
      kinds: o.kinds,
      redis: o.redis,
      signedIn: o.signedIn,
      extraQueues: o.extraQueues,
      logger: o.logger?.child({ account: account.name }),
      base: accountBase(account.name),
      accounts: () => ({ current: account.name }),
    });

  /** Brought up to date with the file's accounts: a dropped or changed account's open pages retire. */
  const follow = () => {
    const now = o.accounts.current();
    if (now === last) return;
    last = now;
    known = new Map(now.map((a) => [a.name, a]));
    targets = now.map((a) => ({ name: a.name, prefix: a.prefix, lagLimitSeconds: a.pulls ? (a.lagLimitSeconds ?? null) : null }));
    for (const [name, had] of open) {
      if (known.get(name) === had.account) continue;
      open.delete(name);
      retire(had);
    }
  };
  return {
    site(name) {
      follow();
      const account = known.get(name);
      if (!account) return undefined;
      let opened = open.get(name);
      if (!opened) open.set(name, (opened = { account, site: openSite(account) }));
      return opened.site;
    },
    targets() {
      follow();
      return targets;
    },
    async close() {
      const all = [...open.values(), ...[...retiring].map((r) => (clearTimeout(r.timer), r.opened))];
      open.clear();
      retiring.clear();
      await Promise.all(all.map(closeOpened));
    },
  };
}

type Page = (req: Request, res: Response) => Promise<void>;
const wrap = (fn: Page) => (req: Request, res: Response, next: NextFunction) => {
  fn(req, res).catch(next);
};
