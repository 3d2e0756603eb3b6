import { Gauge } from 'prom-client';
import { defaults } from '../../config/defaults.js';
import type { AppContext } from './app-context.js';
import { secretValues } from './command-context.js';
import { logRepeated, reasonOf } from '../log/log-throttle.js';
import type { ReadyCheck } from '../metrics/worker-http.js';
import { messageOf } from '../errors/message-of.js';
import { watchRedisWrites, type RedisWriteWatch, type WriteState } from '../redis/write-watch.js';
import { redisRefusedAlert } from '../ops/redis-refused-alert.js';

export interface RedisHealthOptions {
  /** Upserts the job schedulers whose next run Redis refused to add (the control's mendSchedulers), once it takes writes. */
  mend?: () => Promise<string[]>;
  /** Probe every this many ms. Default 2 000. */
  everyMs?: number;
}

export interface RedisHealth {
  watch: RedisWriteWatch;
  /** /readyz's check: fails while Redis refuses writes, saying why. */
  ready: ReadyCheck;
  stop(): void;
}

/** After the last refused write, the schedulers are checked at every probe this long (a run taken at the edge). */
const MEND_WINDOW_MS = 60_000;

const since = (s: WriteState) => `${new Date(s.since!).toISOString()} (${Math.round((Date.now() - s.since!) / 1000)} s)`;

/**
 * What `worker` does about a Redis that refuses writes (full, read-only) or is away, beside BullMQ's own reconnecting:
 * a write probe every 2 s, a readiness check and a gauge that say so, one alert when it lasts, and the job schedulers
 * mended as soon as writes pass again, so pulls go on within seconds.
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
  new Gauge({
    name: 'isync_redis_writes_refused_seconds',
    help: 'Seconds since Redis began to refuse writes (full, read-only) or to answer none, as seen by this process; 0 while it takes them.',
    registers: [app.metrics.registry],
    collect() {
      const s = watch.state();
      this.set(s.refusing ? Math.max(1, Math.round((Date.now() - s.since!) / 1000)) : 0);
    },
  });
  const webhookUrl = config.alerts.webhookUrl;
  const alert = webhookUrl
    ? redisRefusedAlert({
        webhookUrl,
        prefix: config.redis.prefix,
        afterSeconds: config.alerts.redisRefusedSeconds,
        secrets: secretValues(config),
        logger,
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
  return {
    watch,
    ready: async () => {
      const s = watch.state();
      return s.refusing
        ? {
            name: 'redis-writes',
            ok: false,
            detail:
              `Redis ${s.answered ? 'refuses writes' : 'does not answer writes'} since ${since(s)}: ` +
              `${s.why}${s.hint ? `. ${s.hint}` : ''}`,
          }
        : { name: 'redis-writes', ok: true };
    },
    stop: () => watch.stop(),
  };
}
