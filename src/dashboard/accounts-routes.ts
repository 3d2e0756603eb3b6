import { isAccountName } from '../../config/accounts.js';
import type { Mapping } from '../../config/mapping-file.js';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { Budgets } from '../../config/read-config.js';
import type { Kind } from '../kinds/kind.js';
import type { Logger } from '../log/logger.js';
import { readAccountSummary } from '../ops/account-summary.js';
import type { Repairer } from '../ops/repair-report.js';
import type { RedisConnection as Redis } from '../redis/connection.js';
import { openAccountSite, type AccountSite } from './account-site.js';
import { accountBase } from './layout.js';
import { accountsHtml, noAccountHtml } from './pages.js';

/** One account of ACCOUNTS_FILE as the dashboard shows it: its prefix and its own settings. */
export interface DashboardAccount {
  name: string;
  prefix: string;
  budgets?: Budgets;
  serviceBaseUrl?: string;
  lagLimitSeconds?: number;
  mapping?: Mapping;
  /** Runs the account's repairs from its reconcile page; none: the page plans them and has no button. */
  repair?: Repairer;
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
 * Every account of ACCOUNTS_FILE: the all-accounts page at `/` (and `/api/accounts`), and each account's own pages
 * under `/a/NAME/`, opened once and again only when the account changes. An unknown or malformed name answers 404.
 */
export function accountsRoutes(o: AccountsRoutesOptions): { router: Router; close(): Promise<void> } {
  const { sites, names, close } = openAccountSites(o);
  // Every account's pages open at start; later only those the file changes.
  sites();
  const summaries = () => Promise.all([...sites().values()].map(({ account, site }) => readAccountSummary(account.name, site.queues)));
  const streams = o.kinds.map((k) => k.stream);

  const router = express.Router();
  router.get(
    '/',
    wrap(async (_req, res) => {
      const all = await summaries();
      res.type('html').send(accountsHtml(all, streams, { signedIn: o.signedIn, accounts: { names: names() } }));
    }),
  );
  router.get(
    '/api/accounts',
    wrap(async (_req, res) => {
      res.json({ accounts: await summaries() });
    }),
  );
  router.use('/a/:account', (req: Request, res: Response, next: NextFunction) => {
    const name = String(req.params.account);
    const opened = isAccountName(name) ? sites().get(name) : undefined;
    if (opened) return opened.site.router(req, res, next);
    if (req.path.startsWith('/api/')) return void res.status(404).json({ error: `no account "${name.slice(0, 40)}": see /api/accounts` });
    res
      .status(404)
      .type('html')
      .send(noAccountHtml(name, { signedIn: o.signedIn, accounts: { names: names() } }));
  });
  return { router, close };
}

/** The accounts' open pages and their names, kept up to date with the file's, and old ones closed once retired. */
function openAccountSites(o: AccountsRoutesOptions): {
  sites(): ReadonlyMap<string, Opened>;
  names(): string[];
  close(): Promise<void>;
} {
  const open = new Map<string, Opened>();
  const retiring = new Set<{ timer: NodeJS.Timeout; opened: Opened }>();
  let last: readonly DashboardAccount[] | undefined;
  let names: string[] = [];

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
      accounts: () => ({ names, current: account.name }),
    });

  /** The accounts' open pages, brought up to date with the file's accounts. */
  const sites = (): ReadonlyMap<string, Opened> => {
    const now = o.accounts.current();
    if (now === last) return open;
    last = now;
    const before = new Map(open);
    open.clear();
    for (const account of now) {
      const had = before.get(account.name);
      before.delete(account.name);
      if (had?.account === account) {
        open.set(account.name, had);
        continue;
      }
      if (had) retire(had);
      open.set(account.name, { account, site: openSite(account) });
    }
    for (const gone of before.values()) retire(gone);
    names = now.map((a) => a.name);
    return open;
  };
  return {
    sites,
    names: () => names,
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
