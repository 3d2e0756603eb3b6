import { Command } from 'commander';
import { ConfigError } from '../../../config/read-config.js';
import { listenOrConfigError } from '../listen-setting.js';
import type { CliIo } from '../../app/cli-io.js';
import { commandLogger, loadConfig } from '../../app/command-context.js';
import { connectRedisWaiting } from '../../app/connect-redis.js';
import { ExitCode, UsageError } from '../exit-codes.js';
import type { CommandResult } from '../command-result.js';
import { untilStopped } from '../until-stopped.js';
import { port } from './options.js';
import type { Kind } from '../../kinds/kind.js';

/** `receive [--host H] [--port P]`: only the push receiver, until SIGTERM/SIGINT; then in-flight pushes finish. */
export function receiveCommand(io: CliIo, done: CommandResult, kinds: readonly Kind[]): Command {
  return new Command('receive')
    .description('only the push receiver (POST /ingest/{stream}), to scale and restart apart from the workers')
    .option('--host <host>', 'address to bind (default INGEST_HOST, else 127.0.0.1)')
    .option('--port <port>', 'port (default INGEST_PORT; 0 picks a free one)', port)
    .action(async (o: { host?: string; port?: number }) => {
      const config = loadConfig(io, kinds);
      const listenPort = o.port ?? config.ingest.port;
      if (listenPort === undefined) throw new UsageError('receive: give --port or set INGEST_PORT');
      if (!config.ingest.secret && !config.ingest.hmacSecret)
        throw new ConfigError(['INGEST_SECRET: is required to receive pushes (or INGEST_SECRET_FILE; see docs/push.md)']);
      const logger = commandLogger(config, io.stdout);
      const [{ createQueues }, { startIngest }, { redisKeys }] = await Promise.all([
        import('../../queue/queues.js'),
        import('../../app/start-ingest.js'),
        import('../../redis/connection.js'),
      ]);
      const redis = await connectRedisWaiting(config.redis, { logger, waitMs: config.redisStartWaitSeconds * 1000, signal: io.stop });
      const streams = kinds.map((k) => k.stream);
      const queues = createQueues({ connection: redis, prefix: config.redis.prefix, jobs: config.jobs, streams });
      try {
        const where = {
          host: o.host ?? config.ingest.host,
          port: listenPort,
          portSetting: o.port === undefined ? 'INGEST_PORT' : '--port',
          hostSetting: o.host === undefined ? 'INGEST_HOST' : '--host',
        };
        const receiver = await listenOrConfigError(
          () =>
            startIngest(config, {
              redis,
              queues,
              keys: redisKeys(config.redis.prefix),
              kinds,
              logger,
              ...(o.host === undefined ? {} : { host: o.host }),
              port: listenPort,
            }),
          where,
        );
        logger.info(
          { url: receiver.url, streams, prefix: config.redis.prefix },
          `receiver started; push to ${receiver.url}/ingest/{stream}`,
        );
        await untilStopped(io.stop);
        logger.info('stopping: no new pushes; those in flight finish');
        await receiver.close();
        logger.info('receiver stopped');
      } finally {
        await queues.close();
        redis.disconnect();
      }
      done(ExitCode.ok);
    });
}
