import { metricSources } from '../../app/metric-sources.js';
import { readOnlyQueues } from '../../app/read-only-queues.js';
import { alertDepsOf } from '../../app/worker-ops.js';
import { messageOf } from '../../errors/message-of.js';
import { logRepeated, reasonOf } from '../../log/log-throttle.js';
import type { AccountSeries } from '../../metrics/account-trouble.js';
import { createMetrics } from '../../metrics/metrics.js';
import { checkAlerts } from '../../ops/alerts.js';
import { createQueues, type QueueSet } from '../../queue/queues.js';
import { redisKeys } from '../../redis/connection.js';
import type { Hosted, HostProcess } from './account-host.js';

// An account of ACCOUNTS_FILE whose parts are closed in this process (no turn here, no feed), as its operators still see
// it: its figures (/metrics?account=NAME) and its alerts, read from Redis over the process's one connection. Its queues
// are opened for the read alone (BullMQ queues on the shared connection: no connection, no worker, no timer of their
// own) and closed once it is done.

/** Reads with the account's queues open for the read, and closes them. */
async function withQueues<T>(p: HostProcess, h: Hosted, read: (queues: QueueSet) => Promise<T>): Promise<T> {
  const { config } = h.entry;
  const streams = p.kinds.map((k) => k.stream);
  // Read-only: opening them writes nothing (no meta, no version check), and nothing else can be asked of them.
  const queues = readOnlyQueues(
    createQueues({ connection: p.redis, prefix: config.redis.prefix, jobs: config.jobs, streams, readsOnly: true }),
  );
  try {
    return await read(queues);
  } finally {
    await queues.close();
  }
}

/**
 * A closed account's series, as its parts read them from Redis when open (jobs per queue and state, import batches,
 * holds, records waiting, feed lag, budgets); the counts its turns made (jobs, calls) are in the totals once they end.
 */
export function closedFigures(p: HostProcess, h: Hosted): Promise<AccountSeries> {
  return withQueues(p, h, async (queues) => {
    const { config } = h.entry;
    const sources = metricSources({ redis: p.redis, keys: redisKeys(config.redis.prefix), queues, config, kinds: p.kinds });
    return createMetrics({ sources, defaultMetrics: false, labels: { account: h.entry.name } }).registry.getMetricsAsJSON();
  });
}

/**
 * The alerts of the accounts in trouble that are closed here (the sweep's: failures no alert told, held jobs or calls,
 * records waiting), each looked at once from Redis as its open parts look (src/ops/alerts.ts: every alert is claimed in Redis,
 * so a look here beside one where the account is open sends nothing twice). At most `max` accounts a sweep, in turn;
 * one sweep's looks at a time. An account open here (a turn, a feed) has its own looks.
 */
export function closedAlerts(p: HostProcess, max: number): (accounts: string[]) => Promise<void> {
  let looking = false;
  let cursor = 0;
  return async (accounts) => {
    if (looking) return;
    looking = true;
    try {
      const closed = accounts.flatMap((name) => {
        const h = p.hosted.get(name);
        return h && !h.parts && h.entry.config.alerts.webhookUrl ? [h] : [];
      });
      const from = closed.length ? cursor % closed.length : 0;
      const turn = [...closed.slice(from), ...closed.slice(0, from)].slice(0, max);
      cursor = from + turn.length;
      for (const h of turn) await alertOnce(p, h);
    } finally {
      looking = false;
    }
  };
}

/** One look at a closed account's alerts; a failed look is logged (and the next sweep looks again). */
async function alertOnce(p: HostProcess, h: Hosted): Promise<void> {
  const name = h.entry.name;
  const logger = p.logger.child({ account: name });
  await withQueues(p, h, async (queues) => {
    const deps = alertDepsOf(h.entry.config, { redis: p.redis, queues, kinds: p.kinds, logger });
    if (deps) await checkAlerts(deps);
  }).catch((err: unknown) =>
    logRepeated(logger, 'warn', `alert-check:${reasonOf(err)}`, { err: messageOf(err) }, 'alert check failed (Redis?); trying again'),
  );
}
