import { defaults } from '../../config/defaults.js';
import type { AppContext } from './app-context.js';
import { secretValues } from './command-context.js';
import { startAlerts } from '../ops/alerts.js';
import { startFlowSampler } from '../ops/flow-metrics.js';
import { messageOf } from '../errors/message-of.js';
import { startUnauthorizedResume } from './unauthorized-resume.js';
import { logRepeated, reasonOf } from '../log/log-throttle.js';

/**
 * What `worker` runs for operators beside the jobs: the chart sampler, and alerts when ALERT_WEBHOOK_URL is set.
 * `idle`: an account of ACCOUNTS_FILE that pulls, between its turns: its charts sampled once a minute (the chart's own
 * step) rather than every defaults.flowSampleSeconds, until `busy(true)` (its turn).
 */
export function startWorkerOps(
  app: Pick<AppContext, 'config' | 'redis' | 'logger' | 'deps'>,
  o: { idle?: boolean } = {},
): { stop(): Promise<void>; alertNow(): void; busy(on: boolean): void } {
  const { config, redis, logger, deps } = app;
  const prefix = config.redis.prefix;
  const sampler = startFlowSampler(
    redis,
    prefix,
    deps.kinds.map((k) => k.stream),
    (o.idle ? defaults.flowIdleSampleSeconds : defaults.flowSampleSeconds) * 1000,
    (err) => logRepeated(logger, 'debug', `flow-sample:${reasonOf(err)}`, { err: messageOf(err) }, 'flow sample not written (Redis?)'),
  );
  const { webhookUrl, lagSeconds, intervalSeconds } = config.alerts;
  const alerts = webhookUrl
    ? startAlerts(
        {
          redis,
          prefix,
          queues: deps.queues,
          settings: {
            webhookUrl,
            lagSeconds,
            intervalSeconds,
            outageSeconds: config.outage.alertSeconds,
            waitHours: config.waits.alertMs / 3_600_000,
          },
          logger,
          secrets: secretValues(config),
          kinds: deps.kinds,
          account: config.accountName,
        },
        config.alerts.checkSeconds * 1000,
      )
    : undefined;
  if (alerts) logger.info({ lagSeconds, intervalSeconds }, 'alerts on: new failures and feed lag are POSTed to ALERT_WEBHOOK_URL');
  // A stream paused for 401 resumes by itself once the credentials' files changed and the service takes them.
  const unauthorized = startUnauthorizedResume({
    redis,
    prefix,
    kinds: deps.kinds,
    client: deps.client,
    credentials: deps.credentials,
    baseUrl: config.service?.baseUrl ?? '',
    logger,
  });
  return {
    // A stream just paused: look now, so the alert does not wait for the next look.
    alertNow: () => alerts?.lookNow(),
    busy: (on) => sampler.pace((on ? defaults.flowSampleSeconds : defaults.flowIdleSampleSeconds) * 1000),
    async stop() {
      void sampler.stop();
      await unauthorized.stop();
      await alerts?.stop();
    },
  };
}
