import { deploymentWorkersKey, startPresenceAt } from '../../ops/worker-presence.js';
import type { Config } from '../../../config/read-config.js';
import { startProcessTracing } from '../../app/app-context.js';
import { fileAccountsSource, readWatchedAccounts, watchAccounts, type AccountsWatch } from '../../app/accounts-watch.js';
import type { CliIo } from '../../app/cli-io.js';
import { commandLogger, secretValues } from '../../app/command-context.js';
import { connectRedisWaiting } from '../../app/connect-redis.js';
import { messageOf } from '../../errors/message-of.js';
import type { Kind } from '../../kinds/kind.js';
import { accountMetrics } from '../../metrics/account-metrics.js';
import { startWorkerHttp, type WorkerHttp } from '../../metrics/worker-http.js';
import { evictionWarnings, logEvictionWarning } from '../../redis/eviction-policy.js';
import { listenOrConfigError } from '../listen-setting.js';
import { untilStopped } from '../until-stopped.js';
import { workerHttpWhere } from './account-worker.js';
import { startAccountsIngest, type AccountsIngest } from './worker-accounts-ingest.js';
import { accountsFields } from '../../log/name-list.js';
import { startDueLoop } from '../../feed/due-loop.js';
import { dueKey } from '../../feed/due-set.js';
import { accountPrefix, basePrefix } from '../../../config/accounts.js';
import { defaults } from '../../../config/defaults.js';
import { clusterPrefix } from '../../redis/connection.js';
import { catalogBudgetOf } from '../../app/build-deps.js';
import { readySet } from '../../queue/dispatch/ready-set.js';
import { readAccountWork } from '../../queue/dispatch/account-work.js';
import { startDispatcher } from '../../queue/dispatch/dispatcher.js';
import { listenToMarks } from '../../queue/dispatch/work-mark.js';
import { startSweep } from '../../queue/dispatch/sweep.js';
import { readSummary } from '../../queue/dispatch/deployment-summary.js';
import { closeParts, registryOf, resolveDue, startTurn, type HostProcess } from './account-host.js';
import { follow, register } from './account-follow.js';
import { closedAlerts, closedFigures } from './account-closed.js';
import { closedSamples, polledFeeds } from './account-charts.js';
import { ranMinutesKey } from '../../ops/flow-minutes.js';
import { startProcessRedisHealth } from '../../app/redis-health.js';
import { tuneHeapForManyAccounts } from '../../app/many-accounts-heap.js';
import type { Registry } from 'prom-client';

/** The deployment's prefix (the environment's account's, `default`'s): QUEUE_PREFIX, in a hash tag on a cluster. */
function deploymentPrefix(env: Record<string, string | undefined>, base: Config): string {
  return base.redis.clusterNodes?.length ? clusterPrefix(basePrefix(env)) : basePrefix(env);
}

/**
 * /metrics (the accounts' totals, the deployment's figures, and the series of the accounts named in METRICS_ACCOUNTS or
 * in trouble, a closed one's read from Redis; any one's by `?account=NAME`), /healthz and /readyz (each account by
 * name) for the process.
 */
async function serveHttp(p: HostProcess, base: Config, ingest: AccountsIngest | undefined, own: Registry): Promise<WorkerHttp | undefined> {
  if (base.http.port === 0) return undefined;
  const where = workerHttpWhere(base);
  const metrics = accountMetrics({
    accounts: () =>
      [...p.hosted.values()].flatMap((h) => {
        const registry = registryOf(h);
        return registry ? [{ name: h.entry.name, registry }] : [];
      }),
    // The process's own write probe (its gauge in the totals, read by IsyncRedisRefusingWrites) and the receiver's counts.
    shared: () => [own, ...(ingest ? [ingest.registry] : [])],
    named: base.http.metricsAccounts,
    lagSeconds: base.alerts.lagSeconds,
    closed: (name) => {
      const h = p.hosted.get(name);
      return h ? closedFigures(p, h) : Promise.resolve(undefined);
    },
    closedNames: () => [...p.hosted.values()].flatMap((h) => (h.parts ? [] : [h.entry.name])),
    // The sweep's summary of every account of the deployment (src/queue/dispatch/deployment-summary.ts): one read.
    deployment: () => readSummary(p.redis, base.dispatch.base),
  });
  p.metrics = metrics;
  return listenOrConfigError(
    () =>
      startWorkerHttp({
        host: where.host,
        port: where.port,
        registry: metrics,
        readiness: [async () => ({ name: 'redis', ok: (await p.redis.ping()) === 'PONG' }), ...(ingest ? [ingest.readiness] : [])],
        accounts: () => [...p.hosted.values()].flatMap((h) => (h.turn ? [{ account: h.entry.name, readiness: h.turn.readiness }] : [])),
        // One account's Redis node refusing writes holds that account; all of them, the process (docs/accounts.md).
        accountOnly: ['redis-writes'],
        warnings: () => evictionWarnings(p.redis),
      }),
    where,
  );
}

/** The process's turns over the deployment's ready set, and the sweep that finds work no mark told of. */
function startTurns(p: HostProcess, base: Config): { stop(): Promise<void> } {
  const d = base.dispatch;
  const ready = readySet(p.redis, d.base, d.shards);
  const wakeAt = (name: string, at: number) => p.due.soonest(`${name}!wake`, at);
  const work = (name: string) =>
    readAccountWork(
      p.redis,
      p.hosted.get(name)?.entry.config.redis.prefix ?? accountPrefix(d.base, name),
      p.kinds.map((k) => k.stream),
    );
  const dispatcher = startDispatcher({
    ready,
    logger: p.logger,
    places: d.places,
    idleMs: d.idleMs,
    turnMs: d.turnMs,
    leaseMs: defaults.accountLeaseMs,
    pollMs: defaults.readyPollMs,
    fullLookMs: defaults.accountFullLookMs,
    lookAgainMs: defaults.accountLookAgainMs,
    knows: (name) => p.hosted.has(name),
    weight: (name) => p.hosted.get(name)?.entry.config.dispatch.weight ?? 1,
    startTurn: (name) => startTurn(p, name),
    work,
    wakeAt,
  });
  p.dispatcher = dispatcher;
  const unlisten = listenToMarks((name) => void (p.hosted.has(name) && dispatcher.nudge()));
  const sweep = startSweep({
    redis: p.redis,
    base: d.base,
    everyMs: defaults.accountsSweepMs,
    accounts: () =>
      [...p.hosted.values()].map((h) => ({
        name: h.entry.name,
        prefix: h.entry.config.redis.prefix,
        polled: polledFeeds(h.entry, p.kinds, defaults.polledLateGraceMs),
      })),
    streams: p.kinds.map((k) => k.stream),
    mark: (name) => dispatcher.mark(name),
    wakeAt,
    lookAgainMs: defaults.accountLookAgainMs,
    ...(p.io.account === undefined ? {} : { only: p.io.account }),
    // A closed account's failed jobs and holds alert as an open one's do, looked at by the sweep's process.
    trouble: closedAlerts(p, defaults.closedAlertsPerSweep),
    // Their charts: the closed accounts not caught up or in trouble sampled, the minute marked for the others.
    minute: closedSamples(p, ranMinutesKey(d.base, p.io.account)),
    logger: p.logger,
  });
  // For `status` and the dashboard of every account: this process takes its work when it has some.
  const presence = startPresenceAt(p.redis, deploymentWorkersKey(d.base), { pulls: false, ingest: p.ingestUrl ?? null });
  return {
    async stop() {
      sweep.stop();
      unlisten();
      await dispatcher.stop();
      await presence.stop();
    },
  };
}

/** Every account's parts closed (their counts kept in /metrics' totals). */
async function closeAll(p: HostProcess): Promise<void> {
  await Promise.all(
    [...p.hosted.values()].map((h) =>
      closeParts(p, h, false).catch((err: unknown) =>
        p.logger.warn({ account: h.entry.name, err: messageOf(err) }, `account ${h.entry.name} did not stop cleanly`),
      ),
    ),
  );
  for (const name of p.hosted.keys()) p.logger.info({ account: name }, `account ${name} stopped`);
  p.hosted.clear();
}

/**
 * `worker` with ACCOUNTS_FILE: every account of the file (or the --account one) in this process, each with its own
 * configuration, over one Redis connection for plain commands. An account with work takes a turn (its workers open
 * in one process of the deployment, src/queue/dispatch/); one with none holds nothing but its entry, and its parts
 * for its scheduled pulls when it pulls a feed. With INGEST_PORT, one push receiver for them all
 * (POST /ingest/{account}/{stream}). The file is looked at every ACCOUNTS_RELOAD_SECONDS and the accounts (the
 * receiver's too) follow it without a restart (docs/accounts.md).
 */
export async function runAccountsWorker(io: CliIo, kinds: readonly Kind[]): Promise<void> {
  tuneHeapForManyAccounts();
  const source = fileAccountsSource(io, kinds, { service: true })!;
  const first = readWatchedAccounts(source);
  // The deployment's settings (Redis, the HTTP ports, the grace period, logs, traces) are every account's: the first's.
  const base = first.accounts[0]!.config;
  const logger = commandLogger(
    { ...base, accountName: undefined },
    io.stdout,
    first.accounts.flatMap((a) => secretValues(a.config)),
    { service: true },
  );
  const redis = await connectRedisWaiting(base.redis, { logger, waitMs: base.redisStartWaitSeconds * 1000, signal: io.stop });
  await logEvictionWarning(redis, logger);
  let stopping = false;
  // The due loop opens the parts of an account whose pull falls due where they are closed: it resolves through `p`.
  const due = startDueLoop({ redis, key: dueKey(deploymentPrefix(io.env, base)), logger, resolve: (member) => resolveDue(p, member) });
  const p: HostProcess = { io, kinds, logger, redis, hosted: new Map(), stopping: () => stopping, due, catalogs: catalogBudgetOf(base) };
  const meanwhile = 'the accounts run as they were until ACCOUNTS_FILE is fixed';
  let watch: AccountsWatch | undefined;
  let ingest: AccountsIngest | undefined;
  let http: WorkerHttp | undefined;
  let turns: { stop(): Promise<void> } | undefined;
  let started = false;
  const writes = startProcessRedisHealth({ config: base, redis, logger }, deploymentPrefix(io.env, base));
  try {
    watch = watchAccounts(source, first, { everyMs: base.accountsReloadSeconds * 1000, logger, meanwhile });
    // One tracer provider for the process (OTEL_* are the deployment's); each account's spans name its service account.
    p.tracing = await startProcessTracing(base, logger);
    // Pushes are taken from the start: their jobs wait in Redis for the account's turn.
    ingest = await startAccountsIngest({ base, first: first.accounts, watch, redis, kinds, logger });
    p.ingestUrl = ingest?.receiver.url;
    // Every account starts, or none: a start that fails stops the process, as one account's does.
    const starts = await Promise.allSettled(first.accounts.map((a) => register(p, a)));
    const failed = starts.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    turns = startTurns(p, base);
    started = true;
    http = await serveHttp(p, base, ingest, writes.registry);
    const pushes = ingest ? `; pushes at ${ingest.receiver.url}/ingest/{account}/{stream}` : '';
    logger.info(
      {
        file: source.file,
        ...accountsFields(first.accounts.map((a) => a.name)),
        http: http?.url ?? 'off',
        ingest: ingest?.receiver.url ?? 'off',
        reloadSeconds: base.accountsReloadSeconds,
        graceSeconds: base.shutdownGraceSeconds,
        accountsOpen: base.dispatch.places,
      },
      `worker started with ${first.accounts.length} account(s) of ACCOUNTS_FILE` +
        `${http ? `; metrics at ${http.url}/metrics, health at ${http.url}/healthz and /readyz` : ''}${pushes}`,
    );
    watch.subscribe((change) => follow(p, change));
    await untilStopped(io.stop);
  } finally {
    stopping = true;
    await watch?.close();
    // Every open account stops taking jobs at once and their active jobs share one grace period; the receiver stops
    // taking pushes meanwhile (those in flight are stored and answered).
    await Promise.all([ingest?.receiver.close(), turns?.stop()]);
    writes.stop();
    await closeAll(p);
    await p.due.close(0);
    p.catalogs.close();
    await http?.close();
    await p.tracing?.shutdown();
    redis.disconnect();
    if (started) logger.info('worker stopped');
    logger.flush?.();
  }
}
