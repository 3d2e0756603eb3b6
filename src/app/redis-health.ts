import { defaults } from '../../config/defaults.js';
import type { AppContext } from './app-context.js';
import { Registry } from 'prom-client';
import type { Metrics } from '../metrics/metrics.js';
import { redisWritesGauge } from '../metrics/hold-gauges.js';
import { secretValues } from './command-context.js';
import { watchRedisWrites, type RedisWriteWatch, type WriteState } from '../queue/hold/write-probe.js';
import { redisRefusedAlert } from '../ops/redis-refused-alert.js';

export interface RedisHealthOptions {
  /** Probe every this many ms. Default 2 000. */
  everyMs?: number;
}

export interface RedisHealth {
  /** The hold for `redis-refused` as this process sees it (/readyz reads it: src/ops/hold-checks.ts). */
  watch: RedisWriteWatch;
  stop(): void;
}

/**
 * What `worker` does about a Redis that refuses writes (full, read-only) or is away, beside BullMQ's own reconnecting:
 * the hold for `redis-refused` (src/queue/hold/write-probe.ts: a write probe every 2 s), which /readyz and /metrics
 * read, and one alert when it lasts. Scheduled pulls need no mending: a claim or an end that Redis refused leaves the
 * due set's member to fall due again (src/feed/due-set.ts).
 */
export function startRedisHealth(
  app: Pick<AppContext, 'config' | 'redis' | 'logger'> & { metrics: Pick<Metrics, 'watchRedisWrites'> },
  o: RedisHealthOptions = {},
): RedisHealth {
  const { config, logger } = app;
  const watch = watchRedisWrites({
    redis: app.redis,
    key: `${config.redis.prefix}:write-probe`,
    logger,
    everyMs: o.everyMs ?? defaults.redisWriteProbeMs,
  });
  app.metrics.watchRedisWrites(() => watch.state());
  const webhookUrl = config.alerts.webhookUrl;
  const alert = webhookUrl
    ? redisRefusedAlert({
        webhookUrl,
        prefix: config.redis.prefix,
        afterSeconds: config.alerts.redisRefusedSeconds,
        secrets: secretValues(config),
        logger,
        account: config.accountName,
      })
    : undefined;
  watch.onProbe((now) => alert?.(now));
  // One probe now, so that a Redis full at start is told at once.
  void watch.probe();
  return { watch, stop: () => watch.stop() };
}

/**
 * With ACCOUNTS_FILE, the process's own write probe under the deployment's prefix, beside those of the accounts open in
 * it: `isync_redis_writes_refused_seconds` (no account label: the rule IsyncRedisRefusingWrites reads it) and its alert
 * (for the deployment), told whether or not an account is open here: at thousands of accounts most are closed. It
 * writes no log line of its own.
 */
export function startProcessRedisHealth(
  app: Pick<AppContext, 'config' | 'redis' | 'logger'>,
  prefix: string,
): RedisHealth & { registry: Registry } {
  const registry = new Registry();
  const config = { ...app.config, accountName: undefined, redis: { ...app.config.redis, prefix } };
  // Its gauge and its alert only: the lines are the open accounts' probes' and the loops' (the sweep's, the look's), as
  // before it, so that a full Redis is told in as few lines as ever (the chaos run's rule: at most 12 a worker).
  const logger = app.logger.child({}, { level: 'silent' });
  const metrics = { watchRedisWrites: (read: () => WriteState) => redisWritesGauge([registry], read) };
  const health = startRedisHealth({ ...app, logger, config, metrics });
  return { ...health, registry };
}
