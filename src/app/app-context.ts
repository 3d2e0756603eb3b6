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

/** Everything a running command (worker, sync, import, demo) stands on. */
export interface AppContext {
  config: Config;
  logger: Logger;
  redis: Redis;
  metrics: Metrics;
  deps: AppDeps;
  close(): Promise<void>;
}

export interface OpenAppOptions {
  /** The kinds of job (the composition root's list): their settings, queues and jobs. */
  kinds: readonly Kind[];
  needs?: ConfigNeeds;
  /** Where log lines go. */
  logTo: OutStream;
  /** A configuration already made (the demo's); default: read from io.env. */
  config?: Config;
  /** Check the service answers and takes the credentials before going on. Default true. */
  probe?: boolean;
  extraSecrets?: string[];
  /** A long-running command: wait up to REDIS_START_WAIT_SECONDS for a Redis that does not answer yet. Default false. */
  waitForRedis?: boolean;
}

/** Reads the configuration, reaches Redis (and the service), and wires the parts with metrics on every call. */
export async function openApp(io: CliIo, o: OpenAppOptions): Promise<AppContext> {
  const config = o.config ?? loadConfig(io, o.kinds, o.needs);
  const logger = commandLogger(config, o.logTo, o.extraSecrets);
  logger.debug({ config: describeConfig(config) }, 'configuration');
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
    deps = buildDeps(config, logger, { redis, kinds: o.kinds, onCall: (call) => metrics?.onCall(call), tracing });
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

/** The running command's context over its parts; closing it closes them, Redis and the tracing, in that order. */
function appContext(d: AppDeps, metrics: Metrics, tracing: Tracing | undefined): AppContext {
  return {
    config: d.config,
    logger: d.logger,
    redis: d.redis,
    metrics,
    deps: d,
    async close() {
      await d.close();
      d.redis.disconnect();
      // After the workers closed: every job span has ended, and the last ones are exported now.
      await tracing?.shutdown();
      d.logger.flush?.();
    },
  };
}
