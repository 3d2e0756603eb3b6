import type { Config } from '../../../config/read-config.js';
import { openApp, startProcessTracing, type ProcessTracing } from '../../app/app-context.js';
import {
  fileAccountsSource,
  readWatchedAccounts,
  watchAccounts,
  type AccountsChange,
  type AccountsWatch,
  type WatchedAccount,
} from '../../app/accounts-watch.js';
import type { CliIo } from '../../app/cli-io.js';
import { commandLogger, secretValues } from '../../app/command-context.js';
import { connectRedisWaiting } from '../../app/connect-redis.js';
import { messageOf } from '../../errors/message-of.js';
import type { Receiver } from '../../ingest/receiver.js';
import type { Kind } from '../../kinds/kind.js';
import { addSecrets, type Logger } from '../../log/logger.js';
import { accountMetrics, type AccountMetrics } from '../../metrics/account-metrics.js';
import { startWorkerHttp, type ReadyCheck, type WorkerHttp } from '../../metrics/worker-http.js';
import type { RedisConnection as Redis } from '../../redis/connection.js';
import { evictionWarnings, logEvictionWarning } from '../../redis/eviction-policy.js';
import { listenOrConfigError } from '../listen-setting.js';
import { untilStopped } from '../until-stopped.js';
import { accountReadiness, startAccountWorker, workerHttpWhere, type AccountWorker } from './account-worker.js';
import { startAccountsIngest, type AccountsIngest } from './worker-accounts-ingest.js';
import { accountsFields } from '../../log/name-list.js';
import { startDueLoop, type DueLoop } from '../../feed/due-loop.js';
import { dueKey } from '../../feed/due-set.js';
import { basePrefix } from '../../../config/accounts.js';
import { clusterPrefix } from '../../redis/connection.js';
import { catalogBudgetOf } from '../../app/build-deps.js';

/** The deployment's prefix (the environment's account's, `default`'s): QUEUE_PREFIX, in a hash tag on a cluster. */
function deploymentPrefix(env: Record<string, string | undefined>, base: Config): string {
  return base.redis.clusterNodes?.length ? clusterPrefix(basePrefix(env)) : basePrefix(env);
}

/** An account this process runs. */
interface Running {
  name: string;
  worker: AccountWorker;
  /** Its /readyz lines (Redis's answer is the process's line). */
  readiness: readonly ReadyCheck[];
}

interface Process {
  io: CliIo;
  kinds: readonly Kind[];
  logger: Logger;
  redis: Redis;
  tracing?: ProcessTracing;
  running: Map<string, Running>;
  stopping: () => boolean;
  /** Where the process takes pushes (INGEST_PORT), for each account's line in `status`. */
  ingest?: Receiver;
  /** Its /metrics, once served: an account that stops leaves its counts in the totals. */
  metrics?: AccountMetrics;
  /** The process's one loop over the deployment's due set: every account's scheduled pulls. */
  due: DueLoop;
  /** The process's one bound on catalog memory (CATALOG_CACHE_MB, CATALOG_IDLE_SECONDS), every account's catalog in it. */
  catalogs: ReturnType<typeof catalogBudgetOf>;
}

/** Opens one account over the process's Redis and starts its work. */
async function startAccount(p: Process, w: WatchedAccount): Promise<void> {
  addSecrets(p.logger, secretValues(w.config));
  const app = await openApp(p.io, {
    kinds: p.kinds,
    needs: { service: true },
    logTo: p.io.stdout,
    service: true,
    probe: false,
    config: w.config,
    shared: { redis: p.redis, tracing: p.tracing, account: w.name, catalogBudget: p.catalogs },
  });
  // Idle workers are parked: an idle account holds 4 connections rather than 9 (docs/accounts.md, Sizing).
  const worker = await startAccountWorker(p.io, app, p.kinds, { park: true, due: p.due });
  const c = accountReadiness(app, worker.runtime, worker.redisHealth, p.kinds, p.stopping);
  worker.present(p.ingest?.url ?? null);
  p.running.set(w.name, { name: w.name, worker, readiness: [c.writes, c.workers, c.streams] });
  const pulls = app.deps.upstream !== undefined;
  app.logger.info(
    { prefix: w.config.redis.prefix, streams: p.kinds.map((k) => k.stream), pulls: pulls ? 'on' : 'off' },
    `account ${w.name} started${pulls ? '' : ' (no UPSTREAM_URL: nothing is pulled; imported and pushed records only)'}`,
  );
}

/** Stops one account gracefully: no new jobs, the active ones get the grace period; its data stays in Redis. */
async function stopAccount(p: Process, r: Running): Promise<void> {
  try {
    await r.worker.shutDown(undefined, `account ${r.name} stopped`);
    await p.metrics?.retire(r.worker.app.metrics.registry).catch((err: unknown) => {
      p.logger.warn({ account: r.name, err: messageOf(err) }, `account ${r.name}: its counts could not be kept in /metrics' totals`);
    });
  } finally {
    await r.worker.release();
    await r.worker.app.close();
  }
}

/**
 * Makes the running accounts what the file says now: a removed account stops, a changed one restarts with its new
 * settings, an added one starts, and one that could not start before is tried again.
 */
async function follow(p: Process, change: AccountsChange): Promise<void> {
  const gone = new Set(change.removed.map((a) => a.name));
  const stops: Running[] = [];
  for (const a of [...change.removed, ...change.changed]) {
    const r = p.running.get(a.name);
    if (!r) continue;
    p.running.delete(a.name);
    // A removed account's schedules leave the due set; a changed one's are registered again (a changed rule re-scores).
    if (gone.has(a.name))
      await r.worker.runtime.control?.removeSchedules().catch((err: unknown) => {
        p.logger.warn({ account: a.name, err: messageOf(err) }, `account ${a.name}: its schedules stay in the due set (Redis?)`);
      });
    stops.push(r);
    r.worker.app.logger.info(
      gone.has(a.name)
        ? `account ${r.name}: no longer in ACCOUNTS_FILE; stopping it (jobs in progress get the grace period, ` +
            `its data stays in Redis until \`inventory-sync accounts purge ${r.name}\`)`
        : `account ${r.name}: its settings changed in ACCOUNTS_FILE; restarting it with them`,
    );
  }
  const start = (a: WatchedAccount) =>
    startAccount(p, a).catch((err: unknown) => {
      p.logger.error(
        { account: a.name, err: messageOf(err) },
        `account ${a.name} could not start: ${messageOf(err)}; it is tried again when ACCOUNTS_FILE changes`,
      );
    });
  const again = new Map(change.changed.map((a) => [a.name, a]));
  const stopping = new Set(stops.map((r) => r.name));
  // An added account starts at once; a changed one once its old self stopped (its jobs' grace period).
  await Promise.all([
    ...stops.map(async (r) => {
      await stopAccount(p, r).catch((err: unknown) =>
        p.logger.warn({ account: r.name, err: messageOf(err) }, `account ${r.name} did not stop cleanly`),
      );
      const a = again.get(r.name);
      if (a) await start(a);
    }),
    ...change.accounts.filter((a) => !p.running.has(a.name) && !stopping.has(a.name)).map(start),
  ]);
}

/**
 * /metrics (the accounts' totals, and the series of the accounts named in METRICS_ACCOUNTS or in trouble; any one's by
 * `?account=NAME`), /healthz and /readyz (each account by name) for the process.
 */
async function serveHttp(p: Process, base: Config, ingest: AccountsIngest | undefined): Promise<WorkerHttp | undefined> {
  if (base.http.port === 0) return undefined;
  const where = workerHttpWhere(base);
  const metrics = accountMetrics({
    accounts: () => [...p.running.values()].map((r) => ({ name: r.name, registry: r.worker.app.metrics.registry })),
    shared: () => (ingest ? [ingest.registry] : []),
    named: base.http.metricsAccounts,
    lagSeconds: base.alerts.lagSeconds,
  });
  p.metrics = metrics;
  return listenOrConfigError(
    () =>
      startWorkerHttp({
        host: where.host,
        port: where.port,
        registry: metrics,
        readiness: [async () => ({ name: 'redis', ok: (await p.redis.ping()) === 'PONG' }), ...(ingest ? [ingest.readiness] : [])],
        accounts: () => [...p.running.values()].map((r) => ({ account: r.name, readiness: r.readiness })),
        // One account's Redis node refusing writes holds that account; all of them, the process (docs/accounts.md).
        accountOnly: ['redis-writes'],
        warnings: () => evictionWarnings(p.redis),
      }),
    where,
  );
}

/**
 * `worker` with ACCOUNTS_FILE: every account of the file (or the --account one) in this process, each with its own
 * configuration, parts and runtime over one Redis connection for plain commands (BullMQ's workers keep their own);
 * with INGEST_PORT, one push receiver for them all (POST /ingest/{account}/{stream}). The file is looked at every
 * ACCOUNTS_RELOAD_SECONDS and the accounts (the receiver's too) follow it without a restart (docs/accounts.md).
 */
export async function runAccountsWorker(io: CliIo, kinds: readonly Kind[]): Promise<void> {
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
  const due = startDueLoop({ redis, key: dueKey(deploymentPrefix(io.env, base)), logger });
  const p: Process = { io, kinds, logger, redis, running: new Map(), stopping: () => stopping, due, catalogs: catalogBudgetOf(base) };
  const meanwhile = 'the accounts run as they were until ACCOUNTS_FILE is fixed';
  let watch: AccountsWatch | undefined;
  let ingest: AccountsIngest | undefined;
  let http: WorkerHttp | undefined;
  let started = false;
  try {
    watch = watchAccounts(source, first, { everyMs: base.accountsReloadSeconds * 1000, logger, meanwhile });
    // One tracer provider for the process (OTEL_* are the deployment's); each account's spans name its service account.
    p.tracing = await startProcessTracing(base, logger);
    // Pushes are taken from the start: their jobs wait in Redis for the account's workers.
    ingest = await startAccountsIngest({ base, first: first.accounts, watch, redis, kinds, logger });
    p.ingest = ingest?.receiver;
    // Every account starts, or none: a start that fails stops the process, as one account's does.
    const starts = await Promise.allSettled(first.accounts.map((a) => startAccount(p, a)));
    const failed = starts.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    started = true;
    http = await serveHttp(p, base, ingest);
    const pushes = ingest ? `; pushes at ${ingest.receiver.url}/ingest/{account}/{stream}` : '';
    logger.info(
      {
        file: source.file,
        ...accountsFields(first.accounts.map((a) => a.name)),
        http: http?.url ?? 'off',
        ingest: ingest?.receiver.url ?? 'off',
        reloadSeconds: base.accountsReloadSeconds,
        graceSeconds: base.shutdownGraceSeconds,
      },
      `worker started with ${first.accounts.length} account(s) of ACCOUNTS_FILE` +
        `${http ? `; metrics at ${http.url}/metrics, health at ${http.url}/healthz and /readyz` : ''}${pushes}`,
    );
    watch.subscribe((change) => follow(p, change));
    await untilStopped(io.stop);
  } finally {
    stopping = true;
    await watch?.close();
    // Every account stops taking jobs at once and their active jobs share one grace period; the receiver stops taking
    // pushes meanwhile (those in flight are stored and answered).
    await Promise.all([
      ingest?.receiver.close(),
      ...[...p.running.values()].map((r) =>
        stopAccount(p, r).catch((err: unknown) =>
          logger.warn({ account: r.name, err: messageOf(err) }, `account ${r.name} did not stop cleanly`),
        ),
      ),
    ]);
    p.running.clear();
    await due.close(0);
    p.catalogs.close();
    await http?.close();
    await p.tracing?.shutdown();
    redis.disconnect();
    if (started) logger.info('worker stopped');
    logger.flush?.();
  }
}
