import { accountConfig, accountsFileStamp, defaultAccount, readAccountsFile, type AccountEntry } from '../../../config/accounts.js';
import { defaults } from '../../../config/defaults.js';
import { ConfigError, type Config } from '../../../config/read-config.js';
import type { AppDeps } from '../../app/build-deps.js';
import type { CliIo } from '../../app/cli-io.js';
import { budgetsOf, secretValues } from '../../app/command-context.js';
import type { DashboardAccount, DashboardAccounts } from '../../dashboard/accounts-routes.js';
import type { Kind } from '../../kinds/kind.js';
import { addSecrets, type Logger } from '../../log/logger.js';
import type { RedisConnection as Redis } from '../../redis/connection.js';

/** How often the dashboard looks whether ACCOUNTS_FILE changed (its size and time: one stat). */
const LOOK_EVERY_MS = 1000;

/**
 * One account as the dashboard shows it, from its configuration. Repairs need the service: with it configured, the
 * reconcile page's buttons run them in the dashboard's process, with deps built at the first repair; `close` ends them.
 */
export function dashboardAccount(name: string, config: Config, redis: Redis, kinds: readonly Kind[], logger: Logger): DashboardAccount {
  let deps: AppDeps | undefined;
  return {
    name,
    prefix: config.redis.prefix,
    budgets: budgetsOf(config),
    serviceBaseUrl: config.service?.baseUrl,
    lagLimitSeconds: config.alerts.lagSeconds,
    mapping: config.mapping,
    repair: config.service
      ? async (ask) => {
          const [{ buildDeps }, { repairDrifts }] = await Promise.all([import('../../app/build-deps.js'), import('../../app/repair.js')]);
          deps ??= buildDeps(config, logger, { redis, kinds });
          return repairDrifts(deps, ask);
        }
      : undefined,
    async close() {
      await deps?.close();
    },
  };
}

/**
 * The deployment's own prefix, where the dashboard keeps its sessions and login counts with ACCOUNTS_FILE: the one
 * the account `default` has (QUEUE_PREFIX, as Redis Cluster needs it).
 */
export function deploymentPrefix(io: CliIo, kinds: readonly Kind[]): string {
  try {
    return accountConfig(io.env, { name: defaultAccount, settings: {} }, {}, kinds, io.dotenv).redis.prefix;
  } catch {
    return io.env.QUEUE_PREFIX?.trim() || defaults.queuePrefix;
  }
}

type Held = { settings: string; account: DashboardAccount };

/**
 * ACCOUNTS_FILE's accounts for the dashboard, read again when the file changes (its stamp): an account whose own
 * settings did not change keeps its pages; a file that no longer reads keeps the accounts as they were, and says why
 * once per change. `first`: the accounts as the command read them at start.
 */
export function fileAccounts(
  io: CliIo,
  kinds: readonly Kind[],
  o: { file: string; first: ReadonlyArray<{ name: string; config: Config }>; redis: Redis; logger: Logger },
): DashboardAccounts {
  const { file, redis, logger } = o;
  let stamp = accountsFileStamp(file);
  let lookedAt = Date.now();
  const entries = safeEntries(file, kinds);
  const held = new Map<string, Held>();
  for (const { name, config } of o.first) {
    const settings = JSON.stringify(entries?.find((e) => e.name === name)?.settings ?? {});
    held.set(name, { settings, account: dashboardAccount(name, config, redis, kinds, logger.child({ account: name })) });
  }
  let list: readonly DashboardAccount[] = [...held.values()].map((h) => h.account);

  const reread = () => {
    try {
      const next = new Map<string, Held>();
      for (const entry of readAccountsFile(file, kinds)) next.set(entry.name, keepOrOpen(entry, held.get(entry.name)));
      held.clear();
      for (const [name, h] of next) held.set(name, h);
      list = [...held.values()].map((h) => h.account);
      logger.info({ accounts: [...held.keys()] }, 'dashboard: ACCOUNTS_FILE changed; its accounts are served as it says now');
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      const fix = 'fix the file; the accounts stay as they were until it reads';
      logger.warn({ problems: err.problems }, `dashboard: ACCOUNTS_FILE changed but does not read (${fix})`);
    }
  };
  const keepOrOpen = (entry: AccountEntry, had: Held | undefined): Held => {
    const settings = JSON.stringify(entry.settings);
    if (had?.settings === settings) return had;
    const config = accountConfig(io.env, entry, {}, kinds, io.dotenv);
    addSecrets(logger, secretValues(config));
    return { settings, account: dashboardAccount(entry.name, config, redis, kinds, logger.child({ account: entry.name })) };
  };

  return {
    current() {
      if (Date.now() - lookedAt < LOOK_EVERY_MS) return list;
      lookedAt = Date.now();
      const now = accountsFileStamp(file);
      if (now === stamp) return list;
      stamp = now;
      reread();
      return list;
    },
  };
}

/** The file's entries, or undefined when it does not read now (it read a moment ago, at start). */
function safeEntries(file: string, kinds: readonly Kind[]): AccountEntry[] | undefined {
  try {
    return readAccountsFile(file, kinds);
  } catch {
    return undefined;
  }
}
