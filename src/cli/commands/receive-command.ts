import { Command } from 'commander';
import { ConfigError } from '../../../config/read-config.js';
import { listenOrConfigError } from '../listen-setting.js';
import type { CliIo } from '../../app/cli-io.js';
import { commandLogger, loadAccounts, secretValues } from '../../app/command-context.js';
import type { AccountConfig } from '../../../config/accounts.js';
import { fileAccountsSource, readWatchedAccounts, watchAccounts, type AccountsWatch } from '../../app/accounts-watch.js';
import { connectRedisWaiting } from '../../app/connect-redis.js';
import { ExitCode, UsageError } from '../exit-codes.js';
import type { CommandResult } from '../command-result.js';
import { untilStopped } from '../until-stopped.js';
import { port } from './options.js';
import type { Kind } from '../../kinds/kind.js';
import { accountsFields } from '../../log/name-list.js';

/** The accounts that have no push secret, one line each (the account named when it comes from ACCOUNTS_FILE). */
function missingSecrets(accounts: readonly AccountConfig[]): string[] {
  return accounts
    .filter(({ config }) => !config.ingest.secret && !config.ingest.hmacSecret)
    .map(({ config }) => {
      const line = 'INGEST_SECRET: is required to receive pushes (or INGEST_SECRET_FILE; see docs/push.md)';
      return config.accountName === undefined ? line : `account "${config.accountName}": ${line}`;
    });
}

/**
 * `receive [--host H] [--port P]`: only the push receiver, until SIGTERM/SIGINT; then in-flight pushes finish. One
 * receiver for every account of ACCOUNTS_FILE (or the `--account` one): `POST /ingest/{account}/{stream}`.
 */
export function receiveCommand(io: CliIo, done: CommandResult, kinds: readonly Kind[]): Command {
  return new Command('receive')
    .description(
      'only the push receiver (POST /ingest/{stream}; POST /ingest/{account}/{stream} for each account of ACCOUNTS_FILE), ' +
        'to scale and restart apart from the workers',
    )
    .option('--host <host>', 'address to bind (default INGEST_HOST, else 127.0.0.1)')
    .option('--port <port>', 'port (default INGEST_PORT; 0 picks a free one)', port)
    .action(async (o: { host?: string; port?: number }) => {
      // ACCOUNTS_FILE's accounts are followed while it runs: an account added is served, one removed answered 404.
      const source = fileAccountsSource(io, kinds, {});
      const first = source && readWatchedAccounts(source);
      const accounts = first?.accounts ?? loadAccounts(io, kinds);
      // The deployment's settings (Redis, the port, the limits) are the same in every account's configuration.
      const config = accounts[0]!.config;
      const listenPort = o.port ?? config.ingest.port;
      if (listenPort === undefined) throw new UsageError('receive: give --port or set INGEST_PORT');
      const missing = missingSecrets(accounts);
      if (missing.length > 0) throw new ConfigError(missing);
      const several = accounts.length > 1;
      // Every account's secrets are redacted; with several accounts the lines of one name it (start-ingest.ts).
      const logger = commandLogger(
        several ? { ...config, accountName: undefined } : config,
        io.stdout,
        accounts.flatMap((a) => secretValues(a.config)),
        { service: true },
      );
      const { startIngest, receiverKeeps } = await import('../../app/start-ingest.js');
      const redis = await connectRedisWaiting(config.redis, { logger, waitMs: config.redisStartWaitSeconds * 1000, signal: io.stop });
      const streams = kinds.map((k) => k.stream);
      let watch: AccountsWatch | undefined;
      try {
        const everyMs = config.accountsReloadSeconds * 1000;
        if (source && first) watch = watchAccounts(source, first, { everyMs, logger, meanwhile: receiverKeeps });
        const where = {
          host: o.host ?? config.ingest.host,
          port: listenPort,
          portSetting: o.port === undefined ? 'INGEST_PORT' : '--port',
          hostSetting: o.host === undefined ? 'INGEST_HOST' : '--host',
        };
        const receiver = await listenOrConfigError(
          () =>
            startIngest(
              accounts.map((a) => ({ config: a.config })),
              {
                redis,
                kinds,
                logger,
                ...(o.host === undefined ? {} : { host: o.host }),
                port: listenPort,
                ...(watch ? { follow: { watch } } : {}),
              },
            ),
          where,
        );
        const form = several ? '{account}/{stream}' : '{stream}';
        logger.info(
          several
            ? { url: receiver.url, streams, ...accountsFields(accounts.map((a) => a.name)) }
            : { url: receiver.url, streams, prefix: config.redis.prefix },
          `receiver started; push to ${receiver.url}/ingest/${form}`,
        );
        await untilStopped(io.stop);
        logger.info('stopping: no new pushes; those in flight finish');
        await watch?.close();
        await receiver.close();
        logger.info('receiver stopped');
      } finally {
        await watch?.close();
        redis.disconnect();
      }
      done(ExitCode.ok);
    });
}
