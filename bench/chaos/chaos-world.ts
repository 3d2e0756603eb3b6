import { mkdirSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFeedServer, type FeedServer } from '../../src/feed/feed-server.js';
import { STREAMS } from '../../jobs/kinds.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import type { SandboxState } from '../../src/sandbox/sandbox-entities.js';
import type { BudgetSettings } from '../../src/sandbox/sandbox-options.js';
import { spawnCli, waitForLog, type CliProcess } from '../lib/cli-process.js';
import { startRedisServer, type RedisServer } from '../../src/redis/embedded-server.js';
import { chaosSecrets, workerEnv, type ChaosSecrets } from './chaos-env.js';
import type { ChaosOptions } from './chaos-options.js';
import type { Scenario } from './scenario.js';
import { FIRST_ACCOUNT, dripper, startOtherAccounts, writeAccountsFile, type HeldBatches, type OtherAccount } from './chaos-accounts.js';

/** Everything a chaos run stands on: private Redis, sandbox, feed server, dashboard, and the workers' env. */
export interface ChaosWorld {
  secrets: ChaosSecrets;
  redis: RedisServer;
  sandbox: Sandbox;
  feed: FeedServer;
  dashboard: CliProcess;
  dashboardUrl: string;
  prefix: string;
  env: Record<string, string>;
  initial: SandboxState;
  /**
   * With `--accounts` over 1: the accounts past the first (each its own sandbox, key and feed), the ACCOUNTS_FILE that
   * names them all (the first as `default`), and their held orders (chaos-accounts.ts), set once Redis is reached.
   */
  others: OtherAccount[];
  accountsFile?: string;
  held?: HeldBatches;
  /** The arguments that name an account to a command (`--account NAME`), none with one account. */
  accountArgs(name?: string): string[];
  /** Appends the next part of each stream to every account's feed; answers whether more is left. */
  drip(): boolean;
  /**
   * With `rotateSecret`: the files the workers read the API key and secret from (INVENTORY_API_KEY_FILE,
   * INVENTORY_API_SECRET_FILE), and the values they were rotated to, once they were.
   */
  secretFiles?: { key: string; secret: string };
  rotated?: { apiKey: string; apiSecret: string };
  close(): Promise<void>;
}

/** POST budget of the sandbox: `share` of the client's, in 1 s fixed windows. */
export function postWindow(o: ChaosOptions, share = 1) {
  return { limit: Math.max(1, Math.floor((o.postPerMinute / 60) * share)), windowMs: 1000 };
}

/** The sandbox's budgets: the POST one (`share` of it), and the total one when the run has one, also in 1 s windows. */
export function sandboxBudgets(o: ChaosOptions, share = 1): BudgetSettings {
  const total = o.totalPerMinute ? { limit: Math.max(1, Math.floor(o.totalPerMinute / 60)), windowMs: 1000 } : null;
  return { post: postWindow(o, share), total };
}

export async function startWorld(o: ChaosOptions, scenario: Scenario, root: string, logDir: string): Promise<ChaosWorld> {
  mkdirSync(logDir, { recursive: true });
  const secrets = chaosSecrets();
  const redis = await startRedisServer({ dir: join(logDir, 'redis'), persist: true });
  const sandbox = await startSandbox({
    account: 'chaos',
    data: 'demo',
    key: secrets.apiKey,
    secret: secrets.apiSecret,
    profile: o.profile,
    budgets: sandboxBudgets(o),
  });
  const initial = sandbox.admin.state();

  // Part of each stream is there at the start; the rest arrives while the workers run (polls pick it up).
  const parts = dripper(scenario.feed);
  const feed = await startFeedServer({ names: STREAMS, token: secrets.upstreamToken, pageSize: 200, streams: parts.initial });
  const others = await startOtherAccounts(o, `chaos${o.seed}`, (key, secret) => ({
    data: 'demo',
    key,
    secret,
    profile: o.profile,
    budgets: sandboxBudgets(o),
  }));
  const drip = () => {
    for (const a of others) a.drip();
    return parts.drip(feed);
  };

  const prefix = `chaos${o.seed}`;
  const base = workerEnv(o, secrets, { serviceUrl: sandbox.url, account: sandbox.account, redisUrl: redis.url, feedUrl: feed.url, prefix });
  // The credentials as a secret manager hands them over: files, rotated in place (chaos-unattended.ts).
  let secretFiles: ChaosWorld['secretFiles'];
  let env: Record<string, string> = base;
  if (o.rotateSecret) {
    const dir = join(logDir, 'secrets');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    secretFiles = { key: join(dir, 'api-key'), secret: join(dir, 'api-secret') };
    writeFileSync(secretFiles.key, `${secrets.apiKey}\n`, { mode: 0o600 });
    writeFileSync(secretFiles.secret, `${secrets.apiSecret}\n`, { mode: 0o600 });
    const { INVENTORY_API_KEY: _key, INVENTORY_API_SECRET: _secret, ...rest } = base;
    env = { ...rest, INVENTORY_API_KEY_FILE: secretFiles.key, INVENTORY_API_SECRET_FILE: secretFiles.secret };
  }
  const accountsFile = others.length ? writeAccountsFile(logDir, others) : undefined;
  if (accountsFile) env = { ...env, ACCOUNTS_FILE: accountsFile };
  const logFile = join(logDir, 'dashboard.log');
  const dashboard = spawnCli({
    root,
    name: 'dashboard',
    args: ['dashboard', '--host', '127.0.0.1', '--port', '0'],
    env: { ...env, DASHBOARD_USER: secrets.dashboardUser, DASHBOARD_PASSWORD: secrets.dashboardPassword },
    logFile,
    useDist: o.dist,
  });
  let closed = false;
  const m = await waitForLog(() => readFileSync(logFile, 'utf8'), /Dashboard: (http:\/\/[^\s/]+)/, 60_000, 'dashboard');
  return {
    secrets,
    redis,
    sandbox,
    feed,
    dashboard,
    dashboardUrl: m[1]!,
    prefix,
    env,
    initial,
    others,
    accountsFile,
    accountArgs: (name = FIRST_ACCOUNT) => (others.length ? ['--account', name] : []),
    drip,
    secretFiles,
    async close() {
      if (closed) return;
      closed = true;
      await dashboard.stop(10_000).catch(() => undefined);
      await feed.close().catch(() => undefined);
      await sandbox.close().catch(() => undefined);
      for (const a of others) {
        await a.feed.close().catch(() => undefined);
        await a.sandbox.close().catch(() => undefined);
      }
      await redis.stop().catch(() => undefined);
    },
  };
}
