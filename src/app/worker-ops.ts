import { defaults } from '../../config/defaults.js';
import type { AppContext } from './app-context.js';
import { secretValues } from './command-context.js';
import { startAlerts, type AlertDeps } from '../ops/alerts.js';
import { startFlowSampler } from '../ops/flow-metrics.js';
import { messageOf } from '../errors/message-of.js';
import { startUnauthorizedResume } from './unauthorized-resume.js';
import { logRepeated, reasonOf } from '../log/log-throttle.js';
import type { Logger } from '../log/logger.js';
import type { StreamName } from '../records/stream-name.js';
import type { RedisConnection as Redis } from '../redis/connection.js';

/** What an account's alerts read and where they go, or undefined without ALERT_WEBHOOK_URL. */
export function alertDepsOf(
  config: AppContext['config'],
  o: Pick<AlertDeps, 'redis' | 'queues' | 'kinds' | 'logger'>,
): AlertDeps | undefined {
  const { webhookUrl, lagSeconds, intervalSeconds } = config.alerts;
  if (!webhookUrl) return undefined;
  const settings = {
    webhookUrl,
    lagSeconds,
    intervalSeconds,
    outageSeconds: config.outage.alertSeconds,
    waitHours: config.waits.alertMs / 3_600_000,
  };
  return { ...o, prefix: config.redis.prefix, settings, secrets: secretValues(config), account: config.accountName };
}

/**
 * The account's chart sampler, every defaults.flowSampleSeconds: a worker's, or an account of ACCOUNTS_FILE's in its
 * turns (between them, the sweep's process samples the closed accounts that need it: src/cli/commands/account-closed.ts).
 */
export function startChartSampler(d: { prefix: string; redis: Redis; logger: Logger; streams: readonly StreamName[] }): {
  stop(): Promise<void>;
} {
  return startFlowSampler(d.redis, d.prefix, d.streams, defaults.flowSampleSeconds * 1000, (err) =>
    logRepeated(d.logger, 'debug', `flow-sample:${reasonOf(err)}`, { err: messageOf(err) }, 'flow sample not written (Redis?)'),
  );
}

/** What `worker` runs for operators beside the jobs: the chart sampler, and alerts when ALERT_WEBHOOK_URL is set. */
export function startWorkerOps(app: Pick<AppContext, 'config' | 'redis' | 'logger' | 'deps'>): { stop(): Promise<void>; alertNow(): void } {
  const { config, redis, logger, deps } = app;
  const prefix = config.redis.prefix;
  const sampler = startChartSampler({ prefix, redis, logger, streams: deps.kinds.map((k) => k.stream) });
  const { lagSeconds, intervalSeconds } = config.alerts;
  const alertDeps = alertDepsOf(config, { redis, queues: deps.queues, kinds: deps.kinds, logger });
  const alerts = alertDeps ? startAlerts(alertDeps, config.alerts.checkSeconds * 1000) : undefined;
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
    async stop() {
      void sampler.stop();
      await unauthorized.stop();
      await alerts?.stop();
    },
  };
}
