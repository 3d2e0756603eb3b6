import pretty from 'pino-pretty';
import { defaults } from '../../config/defaults.js';
import { chooseAccount, readAccounts, type AccountConfig } from '../../config/accounts.js';
import { readConfig, secretsOf, type Budgets, type Config, type ConfigNeeds } from '../../config/read-config.js';
import { createLogger, secretForms, type Logger } from '../log/logger.js';
import type { CliIo, OutStream } from './cli-io.js';
import { connectRedis } from './connect-redis.js';
import { describeRedis, type RedisConnection as Redis } from '../redis/connection.js';
import { openStreamQueues, type StreamQueues } from '../queue/stream-queues.js';
import type { Kind } from '../kinds/kind.js';

/**
 * The configuration a command runs with, the kinds' own settings with it: the account of `--account` (or the only
 * one) of ACCOUNTS_FILE, else the environment's. Throws ConfigError listing every problem.
 */
export function loadConfig(io: CliIo, kinds: readonly Kind[], needs: ConfigNeeds = {}): Config {
  if (!io.env.ACCOUNTS_FILE?.trim() && io.account === undefined) return readConfig(io.env, needs, kinds, io.dotenv);
  return chooseAccount(readAccounts(io.env, needs, kinds, io.dotenv), io.account).config;
}

/** Every account's configuration (ACCOUNTS_FILE's, or the environment's one account `default`); `--account` keeps one. */
export function loadAccounts(io: CliIo, kinds: readonly Kind[], needs: ConfigNeeds = {}): AccountConfig[] {
  const all = readAccounts(io.env, needs, kinds, io.dotenv);
  return io.account === undefined ? all.accounts : [chooseAccount(all, io.account)];
}

/** Every secret of the configuration in every form it travels in (Basic credentials are base64). */
export function secretValues(config: Config): string[] {
  const pairs: Array<[string, string]> = config.service ? [[config.service.apiKey, config.service.apiSecret]] : [];
  return secretForms(secretsOf(config), pairs);
}

/**
 * The command's logger: JSON lines (pretty on a terminal) on `stream`, secrets redacted by value.
 * Commands with output of their own log to stderr so that stdout stays theirs (and parseable with --json).
 */
export function commandLogger(config: Config, stream: OutStream, extraSecrets: string[] = []): Logger {
  const secrets = [...secretValues(config), ...extraSecrets];
  if (stream.isTTY) {
    const prettyStream = pretty({
      destination: stream,
      colorize: true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname',
      sync: true,
    });
    return createLogger({ level: config.logLevel, secrets, destination: prettyStream, account: config.accountName });
  }
  return createLogger({ level: config.logLevel, secrets, destination: stream, account: config.accountName });
}

export function writeJson(io: CliIo, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Runs `fn` with Redis and the stream queues of the kinds under the configured prefix, closing both after. */
export async function withQueues<T>(
  config: Config,
  kinds: readonly Kind[],
  fn: (queues: StreamQueues, redis: Redis) => Promise<T>,
): Promise<T> {
  const redis = await connectRedis(config.redis);
  const queues = openStreamQueues(redis, config.redis.prefix, kinds);
  try {
    return await fn(queues, redis);
  } finally {
    await queues.close();
    redis.disconnect();
  }
}

/** The request budgets of the configuration, or the defaults when the service is not configured. */
export function budgetsOf(config: Config): Budgets {
  return (
    config.service?.budgets ?? {
      postPerMinute: defaults.postPerMinute,
      getPerMinute: defaults.getPerMinute,
      collectionPerHour: defaults.collectionPerHour,
      headroom: defaults.budgetHeadroom,
    }
  );
}

/** The configuration as it may be logged: every setting but the secrets (and Redis's password). */
export function describeConfig(config: Config): Record<string, unknown> {
  return {
    service: config.service
      ? { baseUrl: config.service.baseUrl, account: config.service.account, budgets: config.service.budgets }
      : 'not configured',
    upstream: config.upstream ? { url: config.upstream.url, token: config.upstream.token ? 'set' : 'none' } : 'not configured',
    redis: { at: describeRedis(config.redis), prefix: config.redis.prefix },
    schedule: config.schedule,
    jobs: config.jobs,
    catalog: config.catalog,
    dashboard: { user: config.dashboard.user ?? 'none', password: config.dashboard.password ? 'set' : 'none' },
    http: config.http,
    ingest: {
      port: config.ingest.port ?? 'off',
      host: config.ingest.host,
      secret: config.ingest.secret ? 'set' : 'none',
      hmacSecret: config.ingest.hmacSecret ? 'set' : 'none',
      maxBodyBytes: config.ingest.maxBodyBytes,
      ratePerSecond: config.ingest.ratePerSecond,
      maxBacklog: config.ingest.maxBacklog,
    },
    alerts: {
      webhook: config.alerts.webhookUrl ? 'set' : 'none',
      lagSeconds: config.alerts.lagSeconds,
      intervalSeconds: config.alerts.intervalSeconds,
      redisRefusedSeconds: config.alerts.redisRefusedSeconds,
    },
    redisStartWaitSeconds: config.redisStartWaitSeconds,
    shutdownGraceSeconds: config.shutdownGraceSeconds,
    logLevel: config.logLevel,
    goLive: config.goLive,
    mapping: config.mapping
      ? { file: config.mapping.file, products: config.mapping.products.size, facilities: config.mapping.facilities.size }
      : 'none',
    tracing: config.tracing.enabled ? 'on (OTLP, the OTEL_* settings)' : 'off',
    // Where secrets given as files are read from (paths, not values).
    secretFiles: config.secretFiles,
  };
}
