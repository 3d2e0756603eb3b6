import type { RedisConnection as Redis } from '../redis/connection.js';
import type { Config, ConfigNeeds } from '../../config/read-config.js';
import { buildDeps, type AppDeps } from './build-deps.js';
import { logEvictionWarning } from '../redis/eviction-policy.js';
import type { Logger } from '../log/logger.js';
import { createMetrics, type Metrics } from '../metrics/metrics.js';
import type { CliIo, OutStream } from './cli-io.js';
import { commandLogger, describeConfig, loadConfig } from './command-context.js';
import { connectRedisWaiting } from './connect-redis.js';
import { probeService } from './probe-service.js';
import type { Tracing } from '../telemetry/tracing.js';
import type { Kind } from '../kinds/kind.js';
import { metricSources } from './metric-sources.js';
import type { CatalogBudget } from '../catalog/catalog-budget.js';

/** Everything a running command (worker, sync, import, demo) stands on. */
export interface AppContext {
  config: Config;
  logger: Logger;
  /** In a dry run (`--dry-run`, io.dryRun) the one Redis handed out answers reads only. */
  redis: Redis;
  metrics: Metrics;
  /** In a dry run, parts that only read (buildDeps' `dryRun`): nothing a command does with them writes or queues. */
  deps: AppDeps;
  close(): Promise<void>;
}

export interface OpenAppOptions {
  /** The kinds of job (the composition root's list): their settings, queues and jobs. */
  kinds: readonly Kind[];
  needs?: ConfigNeeds;
  /** Where log lines go. */
  logTo: OutStream;
  /**
   * A service (`worker`, the demo): every record at LOG_LEVEL on logTo. Default: a one-shot command (warnings on logTo,
   * the rest to LOG_FILE).
   */
  service?: boolean;
  /** A configuration already made (the demo's); default: read from io.env. */
  config?: Config;
  /** Check the service answers and takes the credentials before going on. Default true. */
  probe?: boolean;
  extraSecrets?: string[];
  /** A long-running command: wait up to REDIS_START_WAIT_SECONDS for a Redis that does not answer yet. Default false. */
  waitForRedis?: boolean;
  /**
   * One process running several accounts (`worker` with ACCOUNTS_FILE): the process's Redis connection for plain
   * commands, the process's tracing, the account its metrics are labelled with, and the bound on every account's catalog
   * memory. What is handed in is left open by close(); the metrics leave the process's own series (CPU, memory, event
   * loop) to the process.
   */
  shared?: { redis: Redis; tracing?: Tracing; account: string; catalogBudget?: CatalogBudget };
}

/** Reads the configuration, reaches Redis (and the service), and wires the parts with metrics on every call. */
export async function openApp(io: CliIo, o: OpenAppOptions): Promise<AppContext> {
  const config = o.config ?? loadConfig(io, o.kinds, o.needs);
  const logger = commandLogger(config, o.logTo, o.extraSecrets, { service: o.service, verbose: io.verbose });
  logger.debug({ config: describeConfig(config) }, 'configuration');
  if (o.shared) return openSharedApp(io, config, logger, o, o.shared);
  const redis = await connectRedisWaiting(config.redis, {
    logger,
    waitMs: o.waitForRedis ? config.redisStartWaitSeconds * 1000 : 0,
    signal: io.stop,
  });
  await logEvictionWarning(redis, logger);
  let deps: AppDeps | undefined;
  let tracing: Tracing | undefined;
  try {
    // The OpenTelemetry SDK is loaded only when tracing is on (OTEL_EXPORTER_OTLP_ENDPOINT): off, it costs nothing.
    if (config.tracing.enabled) {
      const { startTracing } = await import('../telemetry/tracing.js');
      tracing = startTracing({ account: config.service?.account ?? '', accountName: config.accountName, logger });
    }
    let metrics: Metrics | undefined;
    deps = buildDeps(config, logger, { redis, kinds: o.kinds, onCall: (call) => metrics?.onCall(call), tracing, dryRun: io.dryRun });
    metrics = createMetrics({ sources: metricSources(deps) });
    if (o.probe !== false) await probeService(deps.client, config.service!.baseUrl);
    return appContext(deps, metrics, tracing);
  } catch (err) {
    await deps?.close().catch(() => undefined);
    redis.disconnect();
    await tracing?.shutdown();
    throw err;
  }
}

/** A process's tracing, when it runs several accounts (each account's spans name its service account). */
export type ProcessTracing = Tracing;

/** The process's tracing when OTEL_EXPORTER_OTLP_ENDPOINT turns it on (the SDK loaded only then), for openApp's `shared`. */
export async function startProcessTracing(config: Config, logger: Logger): Promise<ProcessTracing | undefined> {
  if (!config.tracing.enabled) return undefined;
  return (await import('../telemetry/tracing.js')).startTracing({ account: '', logger });
}

/** One account of a process that runs several: its own parts over the process's Redis connection and tracing. */
async function openSharedApp(
  io: CliIo,
  config: Config,
  logger: Logger,
  o: OpenAppOptions,
  shared: NonNullable<OpenAppOptions['shared']>,
): Promise<AppContext> {
  const tracing = shared.tracing && {
    telemetry: shared.tracing.telemetry,
    jobs: shared.tracing.jobsFor(config.service?.account ?? '', config.accountName),
  };
  let metrics: Metrics | undefined;
  const deps = buildDeps(config, logger, {
    redis: shared.redis,
    kinds: o.kinds,
    onCall: (call) => metrics?.onCall(call),
    tracing,
    dryRun: io.dryRun,
    catalogBudget: shared.catalogBudget,
  });
  try {
    metrics = createMetrics({ sources: metricSources(deps), defaultMetrics: false, labels: { account: shared.account } });
    if (o.probe !== false) await probeService(deps.client, config.service!.baseUrl);
  } catch (err) {
    await deps.close().catch(() => undefined);
    throw err;
  }
  return appContext(deps, metrics, undefined, { ownsRedis: false });
}

/** The running command's context over its parts; closing it closes them, Redis and the tracing, in that order. */
function appContext(
  d: AppDeps,
  metrics: Metrics,
  tracing: Tracing | undefined,
  o: { ownsRedis: boolean } = { ownsRedis: true },
): AppContext {
  return {
    config: d.config,
    logger: d.logger,
    redis: d.redis,
    metrics,
    deps: d,
    async close() {
      await d.close();
      if (o.ownsRedis) d.redis.disconnect();
      // After the workers closed: every job span has ended, and the last ones are exported now.
      await tracing?.shutdown();
      d.logger.flush?.();
    },
  };
}
