import { workMarkOf } from '../queue/dispatch/work-mark.js';
import { pino, type DestinationStream, type Level } from 'pino';
import pretty from 'pino-pretty';
import { messageOf } from '../errors/message-of.js';
import { defaults } from '../../config/defaults.js';
import { chooseAccount, readAccounts, type AccountConfig } from '../../config/accounts.js';
import { ConfigError, readConfig, secretsOf, type Budgets, type Config, type ConfigNeeds } from '../../config/read-config.js';
import { createLogger, secretForms, type Logger } from '../log/logger.js';
import type { CliIo, OutStream } from './cli-io.js';
import { connectRedis } from './connect-redis.js';
import { describeRedis, type RedisConnection as Redis } from '../redis/connection.js';
import { openStreamQueues, type StreamQueues } from '../queue/stream-queues.js';
import type { Kind } from '../kinds/kind.js';
import { logEvictionWarning } from '../redis/eviction-policy.js';
import { createQueues, type QueueSet } from '../queue/queues.js';
import type { StreamName } from '../records/stream-name.js';
import { readOnlyQueues } from './read-only-queues.js';
import { readOnlyRedis } from './read-only-redis.js';

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

/** How a command logs: as a service (`worker`, `receive`, `dashboard`) or as a one-shot command (the rest). */
export interface LogMode {
  /** A service: every record at LOG_LEVEL (info) on its stream, JSON (pretty on a terminal). Default: a one-shot command. */
  service?: boolean;
  /** `--verbose`: a one-shot command writes info records on stderr too. */
  verbose?: boolean;
}

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];
/** The more talkative of two pino levels. */
const lower = (a: string, b: string) => (LEVELS.indexOf(a) <= LEVELS.indexOf(b) ? a : b);

/**
 * The level a one-shot command writes on stderr (docs/commands.md, "What a command prints"): warnings and errors only,
 * unless `--verbose` (info, or LOG_LEVEL when it says more) or LOG_LEVEL without LOG_FILE (that level).
 */
export function stderrLevel(config: Pick<Config, 'logLevel' | 'logLevelGiven' | 'logFile'>, verbose = false): string {
  if (verbose) return lower(config.logLevel, 'info');
  if (config.logLevelGiven && !config.logFile) return config.logLevel;
  return defaults.commandStderrLevel;
}

/** A terminal gets lines for a person; anything else JSON lines. */
function humanOr(stream: OutStream): DestinationStream {
  if (!stream.isTTY) return stream;
  return pretty({ destination: stream, colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', sync: true });
}

/** LOG_FILE, opened to append (synchronously, so a record written just before exit is kept); a ConfigError when it cannot be. */
function logFileStream(path: string): DestinationStream {
  try {
    return pino.destination({ dest: path, append: true, sync: true, mkdir: true });
  } catch (err) {
    throw new ConfigError([`LOG_FILE: ${path} cannot be opened for appending (${(err as NodeJS.ErrnoException).code ?? messageOf(err)})`]);
  }
}

/**
 * The command's logger, secrets redacted by value. A service logs every record at LOG_LEVEL on `stream`. A one-shot
 * command keeps its output for what it prints: `stream` (stderr) gets warnings and errors (stderrLevel), and LOG_FILE,
 * when set, every record at LOG_LEVEL as JSON lines.
 */
export function commandLogger(config: Config, stream: OutStream, extraSecrets: string[] = [], mode: LogMode = {}): Logger {
  const secrets = [...secretValues(config), ...extraSecrets];
  const account = config.accountName;
  if (mode.service) return createLogger({ level: config.logLevel, secrets, destination: humanOr(stream), account });
  const onStream = stderrLevel(config, mode.verbose);
  if (!config.logFile) return createLogger({ level: onStream, secrets, destination: humanOr(stream), account });
  const streams = [
    { level: onStream, stream: humanOr(stream) },
    { level: config.logLevel, stream: logFileStream(config.logFile) },
  ].filter((s) => s.level !== 'silent');
  const destination = pino.multistream(streams.map((s) => ({ level: s.level as Level, stream: s.stream })));
  return createLogger({ level: lower(onStream, config.logLevel), secrets, destination, account });
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

/** Redis and the record queues a command queues with, without the service (`import`): closed together. */
export interface CommandQueues {
  redis: Redis;
  queues: QueueSet;
  close(): Promise<void>;
}

/**
 * Redis and the queues of `streams` under the configured prefix, for a command that queues without the service. In a
 * dry run (io.dryRun) both only read, as openApp's parts do: what the command forgot to plan is refused, not queued.
 */
export async function commandQueues(io: CliIo, config: Config, streams: readonly StreamName[], logger: Logger): Promise<CommandQueues> {
  const raw = await connectRedis(config.redis, { logger });
  await logEvictionWarning(raw, logger);
  const opened = createQueues({
    connection: raw,
    prefix: config.redis.prefix,
    jobs: config.jobs,
    streams,
    mark: io.dryRun ? undefined : workMarkOf(raw, config),
  });
  return {
    redis: io.dryRun ? readOnlyRedis(raw) : raw,
    queues: io.dryRun ? readOnlyQueues(opened) : opened,
    async close() {
      await opened.close();
      raw.disconnect();
    },
  };
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
    logFile: config.logFile ?? 'none',
    goLive: config.goLive,
    mapping: config.mapping
      ? { file: config.mapping.file, products: config.mapping.products.size, facilities: config.mapping.facilities.size }
      : 'none',
    tracing: config.tracing.enabled ? 'on (OTLP, the OTEL_* settings)' : 'off',
    // Where secrets given as files are read from (paths, not values).
    secretFiles: config.secretFiles,
  };
}
