import type { RedisConnection as Redis } from '../redis/connection.js';
import type { Config, ConfigNeeds } from '../../config/read-config.js';
import { buildDeps, type AppDeps } from './build-deps.js';
import { logEvictionWarning } from '../redis/eviction-policy.js';
import type { Logger } from '../logger.js';
import { createMetrics, type Metrics } from '../metrics/metrics.js';
import { readFeedState } from '../feed/feed-state.js';
import { STREAMS } from '../../jobs/streams.js';
import type { CliIo, OutStream } from './cli-io.js';
import { commandLogger, describeConfig, loadConfig } from './command-context.js';
import { connectRedisWaiting } from './connect-redis.js';
import { intakeCounts } from '../ops/intake-counts.js';
import { probeService } from './probe-service.js';
import { readBreaker } from '../queue/stream-breaker.js';
import { readOutage } from '../queue/service-outage.js';
import { laneLimits } from '../client/budget-lanes.js';
import { readShares } from '../client/budget-share.js';
import type { Tracing } from '../telemetry/tracing.js';

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
  const config = o.config ?? loadConfig(io, o.needs);
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
    if (config.tracing.enabled)
      tracing = (await import('../telemetry/tracing.js')).startTracing({ account: config.service?.account ?? '', logger });
    let metrics: Metrics | undefined;
    deps = buildDeps(config, logger, { redis, onCall: (call) => metrics?.onCall(call), tracing });
    const d = deps;
    metrics = createMetrics({
      sources: {
        async queueCounts() {
          const out: Array<{ stream: string; state: string; count: number }> = [];
          for (const stream of d.queues.streams()) {
            const counts = await d.queues.get(stream).getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized');
            for (const [state, count] of Object.entries(counts)) out.push({ stream, state, count });
          }
          return out;
        },
        async intakeCounts() {
          const out: Array<{ stream: string; state: string; count: number }> = [];
          for (const stream of d.queues.streams()) {
            for (const [state, count] of Object.entries(await intakeCounts(d.queues, stream))) out.push({ stream, state, count });
          }
          return out;
        },
        async breakers() {
          return Promise.all(d.queues.streams().map(async (s) => readBreaker(redis, d.keys, s)));
        },
        async outage() {
          const o = await readOutage(redis, d.keys);
          return { open: o.open, sinceMs: o.since ? Date.parse(o.since) : null };
        },
        async budgetShares() {
          const budgets = config.service?.budgets;
          if (!budgets) return [];
          const shares = await readShares(redis, d.keys);
          return Object.entries(laneLimits(budgets)).map(([lane, l]) => {
            const perMinute = (l.limit * 60_000) / l.windowMs;
            const share = shares[lane as keyof typeof shares];
            return {
              lane,
              configuredPerMinute: perMinute,
              effectivePerMinute: perMinute * budgets.headroom * share.factor,
              reason: share.reason,
            };
          });
        },
        async feedLag() {
          const now = Date.now();
          const states = await Promise.all(STREAMS.map((s) => readFeedState(redis, d.keys, s)));
          return states
            .filter((s) => s.caughtUpAt)
            .map((s) => ({ stream: s.stream, seconds: Math.max(0, (now - Date.parse(s.caughtUpAt!)) / 1000) }));
        },
      },
    });
    if (o.probe !== false) await probeService(d.client, config.service!.baseUrl);
    return {
      config,
      logger,
      redis,
      metrics,
      deps: d,
      async close() {
        await d.close();
        redis.disconnect();
        // After the workers closed: every job span has ended, and the last ones are exported now.
        await tracing?.shutdown();
        logger.flush?.();
      },
    };
  } catch (err) {
    await deps?.close().catch(() => undefined);
    redis.disconnect();
    await tracing?.shutdown();
    throw err;
  }
}
