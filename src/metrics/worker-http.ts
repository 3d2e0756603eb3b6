import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { messageOf } from '../errors/message-of.js';

/** One readiness check: a name and whether it passes (with a reason when not). */
export type ReadyCheck = () => Promise<{ name: string; ok: boolean; detail?: string }>;

export interface WorkerHttpOptions {
  host: string;
  /** 0 picks a free port (the caller decides whether to serve at all). */
  port: number;
  /**
   * What /metrics answers: a registry, or the accounts' totals and some accounts' series (src/metrics/account-metrics.ts),
   * which also answers /metrics?account=NAME (undefined: no account has the name).
   */
  registry: Pick<Registry, 'metrics' | 'contentType'> & { account?(name: string): Promise<string | undefined> };
  /** All must pass for /readyz to answer 200. */
  readiness: ReadyCheck[];
  /**
   * Several accounts in one process: each account's checks, listed under `accounts` by name; all must pass for 200,
   * as `readiness` does (an account's held streams pass, as one account's do: src/ops/hold-checks.ts).
   */
  accounts?: () => ReadonlyArray<{ account: string; readiness: readonly ReadyCheck[] }>;
  /**
   * Names of account checks that make only their account not ready (e.g. `redis-writes`: on a Redis Cluster one
   * account's node may be full while the others' take writes), unless every account fails one: then this process can do
   * nothing, and /readyz answers 503 as one account's worker does.
   */
  accountOnly?: readonly string[];
  /**
   * Risks that do not stop the worker (e.g. Redis may evict keys), listed in /readyz's `warnings` without
   * changing its status: restarting or unrouting a working worker would not remove them.
   */
  warnings?: () => Promise<string[]>;
}

export interface WorkerHttp {
  url: string;
  port: number;
  close(): Promise<void>;
}

const CHECK_TIMEOUT_MS = 2000;

/** What `work` answers within CHECK_TIMEOUT_MS, or what `fail` makes of its error (or of the silence). */
async function withinTimeout<T>(work: () => Promise<T>, fail: (why: string) => T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work(),
      new Promise<T>((resolve) => {
        timer = setTimeout(() => resolve(fail(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
      }),
    ]);
  } catch (err) {
    return fail(messageOf(err));
  } finally {
    clearTimeout(timer);
  }
}

const runCheck = (check: ReadyCheck) => withinTimeout(check, (detail) => ({ name: 'check', ok: false, detail }));

/** The warnings, or one saying they could not be read. */
const readWarnings = (warnings: WorkerHttpOptions['warnings']) =>
  warnings ? withinTimeout(warnings, (why) => [`could not read the warnings: ${why}`]) : Promise.resolve([]);

/** Each account's checks, run at once, and its status. */
async function readAccounts(accounts: WorkerHttpOptions['accounts']) {
  if (!accounts) return undefined;
  return Promise.all(
    accounts().map(async (a) => {
      const checks = await Promise.all(a.readiness.map(runCheck));
      return { account: a.account, status: checks.every((c) => c.ok) ? 'ready' : 'not ready', checks };
    }),
  );
}

/** The accounts' part of /readyz's status: see WorkerHttpOptions.accountOnly. */
function accountsReady(accounts: ReadonlyArray<{ checks: ReadonlyArray<{ name: string; ok: boolean }> }>, accountOnly: readonly string[]) {
  const own = (c: { name: string }) => accountOnly.includes(c.name);
  if (!accounts.every((a) => a.checks.every((c) => c.ok || own(c)))) return false;
  return accounts.length === 0 || accounts.some((a) => a.checks.every((c) => c.ok));
}

/** One account's series (/metrics?account=NAME), or undefined when none has the name (or the worker runs one account). */
const accountMetricsOf = (registry: WorkerHttpOptions['registry'], name: string) =>
  registry.account ? registry.account(name) : Promise.resolve(undefined);

/** What /metrics?account=NAME answers when it has no such account. */
function noAccount(registry: WorkerHttpOptions['registry'], name: string): string {
  if (!registry.account)
    return `no account ${JSON.stringify(name)}: this worker runs one account (no ACCOUNTS_FILE); /metrics has all its series\n`;
  const which = 'the name of an account of ACCOUNTS_FILE (`accounts list`)';
  return `no account ${JSON.stringify(name)} in this worker: /metrics?account=NAME takes ${which}\n`;
}

/** /metrics (Prometheus text), /healthz (the process answers) and /readyz (Redis answers, workers running). */
export async function startWorkerHttp(o: WorkerHttpOptions): Promise<WorkerHttp> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'text/plain', 'method not allowed\n');
    if (path === '/healthz') return send(200, 'application/json', '{"status":"ok"}\n');
    if (path === '/readyz') {
      void Promise.all([Promise.all(o.readiness.map(runCheck)), readAccounts(o.accounts), readWarnings(o.warnings)]).then(
        ([checks, accounts, warnings]) => {
          const ok = checks.every((c) => c.ok) && accountsReady(accounts ?? [], o.accountOnly ?? []);
          const body = { status: ok ? 'ready' : 'not ready', checks, ...(accounts ? { accounts } : {}), warnings };
          send(ok ? 200 : 503, 'application/json', `${JSON.stringify(body)}\n`);
        },
      );
      return;
    }
    if (path === '/metrics') {
      const account = new URL(req.url ?? '/', 'http://worker').searchParams.get('account');
      void (account === null ? o.registry.metrics() : accountMetricsOf(o.registry, account)).then(
        (text) => (text === undefined ? send(404, 'text/plain', noAccount(o.registry, account!)) : send(200, o.registry.contentType, text)),
        (err: unknown) => send(500, 'text/plain', `metrics failed: ${messageOf(err)}\n`),
      );
      return;
    }
    send(404, 'text/plain', 'not found: try /metrics, /healthz or /readyz\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const host = o.host.includes(':') ? `[${o.host}]` : o.host;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
