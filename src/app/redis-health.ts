import { defaults } from '../../config/defaults.js';
import type { AppContext } from './app-context.js';
import { secretValues } from './command-context.js';
import { logRepeated, reasonOf } from '../log/log-throttle.js';
import { messageOf } from '../errors/message-of.js';
import { watchRedisWrites, type RedisWriteWatch } from '../queue/hold/write-probe.js';
import { redisRefusedAlert } from '../ops/redis-refused-alert.js';

export interface RedisHealthOptions {
  /** Upserts the job schedulers whose next run Redis refused to add (the control's mendSchedulers), once it takes writes. */
  mend?: () => Promise<string[]>;
  /** Probe every this many ms. Default 2 000. */
  everyMs?: number;
}

export interface RedisHealth {
  /** The hold for `redis-refused` as this process sees it (/readyz reads it: src/ops/hold-checks.ts). */
  watch: RedisWriteWatch;
  stop(): void;
}

/** After the last refused write, the schedulers are checked at every probe this long (a run taken at the edge). */
const MEND_WINDOW_MS = 60_000;

/**
 * What `worker` does about a Redis that refuses writes (full, read-only) or is away, beside BullMQ's own reconnecting:
 * the hold for `redis-refused` (src/queue/hold/write-probe.ts: a write probe every 2 s), which /readyz and /metrics
 * read, one alert when it lasts, and the job schedulers mended as soon as writes pass again, so pulls go on within
 * seconds.
 */
export function startRedisHealth(
  app: Pick<AppContext, 'config' | 'redis' | 'logger' | 'metrics'>,
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
  let lastRefusedAt = 0;
  let mending = false;
  watch.onProbe((now) => {
    if (now.refusing) lastRefusedAt = Date.now();
    alert?.(now);
    if (now.refusing || !o.mend || mending || Date.now() - lastRefusedAt > MEND_WINDOW_MS) return;
    mending = true;
    o.mend()
      .then((ids) => {
        if (ids.length)
          logger.info({ schedulers: ids }, `job schedulers re-added (their next run was refused by Redis): ${ids.join(', ')}`);
      })
      .catch((err: unknown) =>
        logRepeated(
          logger,
          'warn',
          `mend-schedulers:${reasonOf(err)}`,
          { err: messageOf(err) },
          'could not check the job schedulers; again in 2 s',
        ),
      )
      .finally(() => (mending = false));
  });
  // One probe now, so that a Redis full at start is told at once.
  void watch.probe();
  return { watch, stop: () => watch.stop() };
}
