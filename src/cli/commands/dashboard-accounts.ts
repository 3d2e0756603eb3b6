import { deploymentWorkersOf } from '../../ops/worker-presence.js';
import { ranMinutesOf } from '../../ops/flow-minutes.js';
import { accountConfig, defaultAccount } from '../../../config/accounts.js';
import { defaults } from '../../../config/defaults.js';
import type { Config } from '../../../config/read-config.js';
import type { AccountsWatch, WatchedAccount } from '../../app/accounts-watch.js';
import type { AppDeps } from '../../app/build-deps.js';
import type { CliIo } from '../../app/cli-io.js';
import { budgetsOf, secretValues } from '../../app/command-context.js';
import type { DashboardAccount, DashboardAccounts } from '../../dashboard/accounts-routes.js';
import type { Kind } from '../../kinds/kind.js';
import { addSecrets, type Logger } from '../../log/logger.js';
import type { RedisConnection as Redis } from '../../redis/connection.js';

/** How often a request makes the dashboard look whether ACCOUNTS_FILE changed (its size and time: one stat). */
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
    pulls: Boolean(config.upstream),
    deploymentWorkers: deploymentWorkersOf(config),
    ranMinutes: ranMinutesOf(config),
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

/**
 * ACCOUNTS_FILE's accounts for the dashboard, following the file (src/app/accounts-watch.ts) from `first`, the
 * accounts as the command read them at start: an account whose own settings did not change keeps its pages (the same
 * object); a file that does not read keeps the accounts as they were (the watch logs why).
 */
export function fileAccounts(
  kinds: readonly Kind[],
  o: { watch: AccountsWatch; first: readonly WatchedAccount[]; redis: Redis; logger: Logger },
): DashboardAccounts {
  const { redis, logger } = o;
  const open = (a: WatchedAccount) => {
    addSecrets(logger, secretValues(a.config));
    return dashboardAccount(a.name, a.config, redis, kinds, logger.child({ account: a.name }));
  };
  let held = new Map(o.first.map((a) => [a.name, open(a)]));
  let list: readonly DashboardAccount[] = [...held.values()];
  // Taken at once (the dashboard opens nothing of an account until its pages are asked for): look() returns with it.
  const { look } = o.watch.subscribe((change) => {
    const changed = new Set([...change.added, ...change.changed].map((a) => a.name));
    held = new Map(change.accounts.map((a) => [a.name, changed.has(a.name) ? open(a) : held.get(a.name)!]));
    list = [...held.values()];
    logger.info({ accounts: [...held.keys()] }, 'dashboard: ACCOUNTS_FILE changed; its accounts are served as it says now');
  });
  let lookedAt = Date.now();
  return {
    current() {
      if (Date.now() - lookedAt < LOOK_EVERY_MS) return list;
      lookedAt = Date.now();
      void look();
      return list;
    },
  };
}
