import { Command } from 'commander';
import { defaults } from '../../../config/defaults.js';
import { ConfigError } from '../../../config/read-config.js';
import { weakPasswordProblem } from '../../dashboard/auth.js';
import { isLoopback } from '../../net/loopback.js';
import type { CliIo } from '../../app/cli-io.js';
import { budgetsOf, commandLogger, loadConfig } from '../../app/command-context.js';
import { connectRedisWaiting } from '../../app/connect-redis.js';
import { ExitCode, UsageError } from '../exit-codes.js';
import type { CommandResult } from '../command-result.js';
import { untilStopped } from '../until-stopped.js';
import { listenOrConfigError } from '../listen-setting.js';
import { port } from './options.js';
import type { Repairer } from '../../ops/repair-report.js';
import type { AppDeps } from '../../app/build-deps.js';
import type { Kind } from '../../kinds/kind.js';

/** `dashboard [--host H] [--port P] [--no-auth]`: serves until SIGTERM/SIGINT. */
export function dashboardCommand(io: CliIo, done: CommandResult, kinds: readonly Kind[]): Command {
  return new Command('dashboard')
    .description(`the web dashboard (${defaults.dashboardHost}:${defaults.dashboardPort} by default)`)
    .option('--host <host>', 'address to bind', defaults.dashboardHost)
    .option('--port <port>', 'port (0 picks a free one)', port, defaults.dashboardPort)
    .option('--no-auth', 'serve without a login (loopback hosts only)')
    .action(async (o: { host: string; port: number; auth: boolean }) => {
      const config = loadConfig(io, kinds);
      const { user, password } = config.dashboard;
      if (o.auth && (!user || !password)) {
        throw new UsageError('DASHBOARD_USER and DASHBOARD_PASSWORD are required for the dashboard (or --no-auth on 127.0.0.1)');
      }
      if (!o.auth && !isLoopback(o.host)) throw new UsageError(`--no-auth is allowed on a loopback host only, not ${o.host}`);
      const weak = o.auth && password ? weakPasswordProblem(o.host, password) : undefined;
      if (weak) throw new ConfigError([weak]);
      const logger = commandLogger(config, io.stderr);
      const redis = await connectRedisWaiting(config.redis, { logger, waitMs: config.redisStartWaitSeconds * 1000, signal: io.stop });
      const { startDashboard } = await import('../../dashboard/dashboard-server.js');
      // Repairs need the service: with it configured, the reconcile page's buttons run them in this process.
      let repairDeps: AppDeps | undefined;
      const repair: Repairer | undefined = config.service
        ? async (ask) => {
            const [{ buildDeps }, { repairDrifts }] = await Promise.all([import('../../app/build-deps.js'), import('../../app/repair.js')]);
            repairDeps ??= buildDeps(config, logger, { redis, kinds });
            return repairDrifts(repairDeps, ask);
          }
        : undefined;
      const where = { host: o.host, port: o.port, portSetting: '--port', hostSetting: '--host', alternative: '0 picks a free one' };
      const dashboard = await listenOrConfigError(
        () =>
          startDashboard({
            kinds,
            host: o.host,
            port: o.port,
            redis,
            prefix: config.redis.prefix,
            auth: o.auth && user && password ? { user, password } : null,
            budgets: budgetsOf(config),
            publicUrl: config.dashboard.publicUrl,
            extraQueues: ['control'],
            logger,
            serviceBaseUrl: config.service?.baseUrl,
            lagLimitSeconds: config.alerts.lagSeconds,
            mapping: config.mapping,
            repair,
          }),
        where,
      ).catch((err: unknown) => {
        redis.disconnect();
        throw err;
      });
      const publicUrl = config.dashboard.publicUrl
        ? `Public:    ${config.dashboard.publicUrl}/ (DASHBOARD_PUBLIC_URL, through your proxy)\n`
        : '';
      io.stdout.write(
        `Dashboard: ${dashboard.url}/ ${o.auth ? `(log in as ${user})` : '(no login: loopback only)'}\n` +
          `${publicUrl}Queues:    ${dashboard.url}/queues\nStop with Ctrl-C.\n`,
      );
      await untilStopped(io.stop);
      await dashboard.close();
      await repairDeps?.close();
      redis.disconnect();
      done(ExitCode.ok);
    });
}
