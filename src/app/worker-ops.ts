import { defaults } from '../../config/defaults.js';
import type { Config } from '../../config/read-config.js';
import type { AppContext } from './app-context.js';
import { secretValues } from './command-context.js';
import { startAlerts, type AlertDeps } from '../ops/alerts.js';
import { startFlowSampler } from '../ops/flow-metrics.js';
import { messageOf } from '../errors/message-of.js';
import { startUnauthorizedResume } from './unauthorized-resume.js';
import { logRepeated, reasonOf } from '../log/log-throttle.js';
import type { Logger } from '../log/logger.js';
import type { Kind } from '../kinds/kind.js';
import type { RedisConnection as Redis } from '../redis/connection.js';

/** What watching an account's feeds and jobs needs: no service client (an account of ACCOUNTS_FILE between turns). */
export interface WatchDeps {
  config: Config;
  redis: Redis;
  logger: Logger;
  kinds: readonly Kind[];
  queues: AlertDeps['queues'];
}

export interface FeedWatch {
  /** A stream just paused: look now, so the alert does not wait for the next look. */
  alertNow(): void;
  stop(): Promise<void>;
}

/**
 * The account's chart sampler, and its alerts (new failures, feed lag, holds) when ALERT_WEBHOOK_URL is set. `idle`:
 * an account of ACCOUNTS_FILE that pulls, between its turns: its charts sampled once a minute (the chart's own step)
 * rather than every defaults.flowSampleSeconds.
 */
export function startFeedWatch(d: WatchDeps, o: { idle?: boolean } = {}): FeedWatch {
  const { config, redis, logger } = d;
  const prefix = config.redis.prefix;
  const sampler = startFlowSampler(
    redis,
    prefix,
    d.kinds.map((k) => k.stream),
    (o.idle ? defaults.flowIdleSampleSeconds : defaults.flowSampleSeconds) * 1000,
    (err) => logRepeated(logger, 'debug', `flow-sample:${reasonOf(err)}`, { err: messageOf(err) }, 'flow sample not written (Redis?)'),
  );
  const { webhookUrl, lagSeconds, intervalSeconds } = config.alerts;
  const alerts = webhookUrl
    ? startAlerts(
        {
          redis,
          prefix,
          queues: d.queues,
          settings: {
            webhookUrl,
            lagSeconds,
            intervalSeconds,
            outageSeconds: config.outage.alertSeconds,
            waitHours: config.waits.alertMs / 3_600_000,
          },
          logger,
          secrets: secretValues(config),
          kinds: d.kinds,
          account: config.accountName,
        },
        config.alerts.checkSeconds * 1000,
      )
    : undefined;
  return {
    alertNow: () => alerts?.lookNow(),
    async stop() {
      void sampler.stop();
      await alerts?.stop();
    },
  };
}

/** Says at start that alerts are on (ALERT_WEBHOOK_URL). */
export function sayAlertsOn(config: Config, logger: Logger): void {
  const { webhookUrl, lagSeconds, intervalSeconds } = config.alerts;
  if (webhookUrl) logger.info({ lagSeconds, intervalSeconds }, 'alerts on: new failures and feed lag are POSTed to ALERT_WEBHOOK_URL');
}

/** What `worker` runs for operators beside the jobs: the feed watch (charts, alerts), and the resume of a 401's pause. */
export function startWorkerOps(app: Pick<AppContext, 'config' | 'redis' | 'logger' | 'deps'>): FeedWatch {
  const { config, redis, logger, deps } = app;
  const watch = startFeedWatch({ config, redis, logger, kinds: deps.kinds, queues: deps.queues });
  sayAlertsOn(config, logger);
  // A stream paused for 401 resumes by itself once the credentials' files changed and the service takes them.
  const unauthorized = startUnauthorizedResume({
    redis,
    prefix: config.redis.prefix,
    kinds: deps.kinds,
    client: deps.client,
    credentials: deps.credentials,
    baseUrl: config.service?.baseUrl ?? '',
    logger,
  });
  return {
    alertNow: () => watch.alertNow(),
    async stop() {
      await unauthorized.stop();
      await watch.stop();
    },
  };
}
