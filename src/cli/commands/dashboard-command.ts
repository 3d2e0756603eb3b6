import { Command } from 'commander';
import { defaults } from '../../../config/defaults.js';
import { ConfigError } from '../../../config/read-config.js';
import { weakPasswordProblem } from '../../dashboard/auth.js';
import { isLoopback } from '../../net/loopback.js';
import type { CliIo } from '../../app/cli-io.js';
import { fileAccountsSource, readWatchedAccounts, watchAccounts } from '../../app/accounts-watch.js';
import { commandLogger, loadConfig, secretValues } from '../../app/command-context.js';
import { defaultAccount } from '../../../config/accounts.js';
import { connectRedisWaiting } from '../../app/connect-redis.js';
import { ExitCode, UsageError } from '../exit-codes.js';
import type { CommandResult } from '../command-result.js';
import { untilStopped } from '../until-stopped.js';
import { listenOrConfigError } from '../listen-setting.js';
import { port } from './options.js';
import { dashboardAccount, deploymentPrefix, fileAccounts } from './dashboard-accounts.js';
import type { Kind } from '../../kinds/kind.js';
import { someNames } from '../../log/name-list.js';

/**
 * `dashboard [--host H] [--port P] [--no-auth]`: serves until SIGTERM/SIGINT. With ACCOUNTS_FILE, every account (one
 * login, the deployment's); with `--account NAME`, that one as without the file.
 */
export function dashboardCommand(io: CliIo, done: CommandResult, kinds: readonly Kind[]): Command {
  return new Command('dashboard')
    .description(`the web dashboard (${defaults.dashboardHost}:${defaults.dashboardPort} by default)`)
    .option('--host <host>', 'address to bind', defaults.dashboardHost)
    .option('--port <port>', 'port (0 picks a free one)', port, defaults.dashboardPort)
    .option('--no-auth', 'serve without a login (loopback hosts only)')
    .action(async (o: { host: string; port: number; auth: boolean }) => {
      // With ACCOUNTS_FILE and no --account: every account; otherwise the one account, as without the file.
      const source = io.account === undefined ? fileAccountsSource(io, kinds, {}) : undefined;
      const first = source && readWatchedAccounts(source);
      const all = first?.accounts;
      const config = all ? { ...all[0]!.config, accountName: undefined } : loadConfig(io, kinds);
      const { user, password } = config.dashboard;
      if (o.auth && (!user || !password)) {
        throw new UsageError('DASHBOARD_USER and DASHBOARD_PASSWORD are required for the dashboard (or --no-auth on 127.0.0.1)');
      }
      if (!o.auth && !isLoopback(o.host)) throw new UsageError(`--no-auth is allowed on a loopback host only, not ${o.host}`);
      const weak = o.auth && password ? weakPasswordProblem(o.host, password) : undefined;
      if (weak) throw new ConfigError([weak]);
      const logger = commandLogger(
        config,
        io.stderr,
        (all ?? []).flatMap((a) => secretValues(a.config)),
        { service: true },
      );
      const redis = await connectRedisWaiting(config.redis, { logger, waitMs: config.redisStartWaitSeconds * 1000, signal: io.stop });
      const { startDashboard } = await import('../../dashboard/dashboard-server.js');
      const one = all ? undefined : dashboardAccount(defaultAccount, config, redis, kinds, logger);
      // ACCOUNTS_FILE followed: an account added is shown, one removed answers 404, one changed shows its new settings.
      const meanwhile = 'the dashboard shows the accounts as they were until ACCOUNTS_FILE is fixed';
      const everyMs = config.accountsReloadSeconds * 1000;
      const watch = source && first ? watchAccounts(source, first, { everyMs, logger, meanwhile }) : undefined;
      const accounts = watch ? fileAccounts(kinds, { watch, first: first!.accounts, redis, logger }) : undefined;
      const where = { host: o.host, port: o.port, portSetting: '--port', hostSetting: '--host', alternative: '0 picks a free one' };
      const dashboard = await listenOrConfigError(
        () =>
          startDashboard({
            kinds,
            host: o.host,
            port: o.port,
            redis,
            prefix: all ? deploymentPrefix(io, kinds) : config.redis.prefix,
            auth: o.auth && user && password ? { user, password } : null,
            publicUrl: config.dashboard.publicUrl,
            logger,
            budgets: one?.budgets,
            serviceBaseUrl: one?.serviceBaseUrl,
            lagLimitSeconds: one?.lagLimitSeconds,
            mapping: one?.mapping,
            repair: one?.repair,
            accounts,
          }),
        where,
      ).catch(async (err: unknown) => {
        await watch?.close();
        redis.disconnect();
        throw err;
      });
      const publicUrl = config.dashboard.publicUrl
        ? `Public:    ${config.dashboard.publicUrl}/ (DASHBOARD_PUBLIC_URL, through your proxy)\n`
        : '';
      const pages = all
        ? `Accounts:  ${all.length} (${someNames(all.map((a) => a.name))}), ` +
          `each at ${dashboard.url}/a/NAME/ (its queues at /a/NAME/queues)\n`
        : `Queues:    ${dashboard.url}/queues\n`;
      io.stdout.write(
        `Dashboard: ${dashboard.url}/ ${o.auth ? `(log in as ${user})` : '(no login: loopback only)'}\n` +
          `${publicUrl}${pages}Stop with Ctrl-C.\n`,
      );
      await untilStopped(io.stop);
      await watch?.close();
      await dashboard.close();
      await one?.close?.();
      redis.disconnect();
      done(ExitCode.ok);
    });
}
