import { accountConfig, accountsFileStamp, readAccountsFile, type AccountEntry } from '../../../config/accounts.js';
import { ConfigError, type Config } from '../../../config/read-config.js';
import { openApp, startProcessTracing, type ProcessTracing } from '../../app/app-context.js';
import type { CliIo } from '../../app/cli-io.js';
import { commandLogger, secretValues } from '../../app/command-context.js';
import { connectRedisWaiting } from '../../app/connect-redis.js';
import { messageOf } from '../../errors/message-of.js';
import type { Kind } from '../../kinds/kind.js';
import { addSecrets, type Logger } from '../../log/logger.js';
import { accountMetrics } from '../../metrics/account-metrics.js';
import { startWorkerHttp, type ReadyCheck, type WorkerHttp } from '../../metrics/worker-http.js';
import type { RedisConnection as Redis } from '../../redis/connection.js';
import { evictionWarnings, logEvictionWarning } from '../../redis/eviction-policy.js';
import { listenOrConfigError } from '../listen-setting.js';
import { untilStopped } from '../until-stopped.js';
import { accountReadiness, startAccountWorker, workerHttpWhere, type AccountWorker } from './account-worker.js';

/** An account the file asks for: its configuration, and its own settings as text (a change restarts it). */
interface Wanted {
  name: string;
  /** The account's settings in the file, in a stable order: equal text, same configuration (the environment is fixed). */
  key: string;
  config: Config;
}

/** An account this process runs. */
interface Running {
  name: string;
  key: string;
  worker: AccountWorker;
  /** Its /readyz lines (Redis's answer is the process's line). */
  readiness: readonly ReadyCheck[];
}

const settingsKey = (e: AccountEntry) => JSON.stringify(Object.entries(e.settings).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** The accounts of ACCOUNTS_FILE (or the --account one), each checked; a ConfigError lists every problem. */
function readWanted(io: CliIo, kinds: readonly Kind[], file: string): Wanted[] {
  const entries = readAccountsFile(file, kinds);
  const chosen = io.account === undefined ? entries : entries.filter((e) => e.name === io.account);
  if (chosen.length === 0)
    throw new ConfigError([
      `--account: no account "${io.account!.slice(0, 40)}": ACCOUNTS_FILE (${file}) names ${entries.map((e) => e.name).join(', ')}`,
    ]);
  const problems: string[] = [];
  const wanted: Wanted[] = [];
  for (const entry of chosen) {
    try {
      wanted.push({ name: entry.name, key: settingsKey(entry), config: accountConfig(io.env, entry, { service: true }, kinds, io.dotenv) });
    } catch (err) {
      if (err instanceof ConfigError) problems.push(...err.problems);
      else throw err;
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return wanted;
}

interface Process {
  io: CliIo;
  kinds: readonly Kind[];
  logger: Logger;
  redis: Redis;
  tracing?: ProcessTracing;
  running: Map<string, Running>;
  stopping: () => boolean;
}

/** Opens one account over the process's Redis and starts its work. */
async function startAccount(p: Process, w: Wanted): Promise<void> {
  addSecrets(p.logger, secretValues(w.config));
  const app = await openApp(p.io, {
    kinds: p.kinds,
    needs: { service: true },
    logTo: p.io.stdout,
    probe: false,
    config: w.config,
    shared: { redis: p.redis, tracing: p.tracing, account: w.name },
  });
  const worker = await startAccountWorker(p.io, app, p.kinds);
  const c = accountReadiness(app, worker.runtime, worker.redisHealth, p.kinds, p.stopping);
  worker.present(null);
  p.running.set(w.name, { name: w.name, key: w.key, worker, readiness: [c.writes, c.workers, c.streams] });
  const pulls = app.deps.upstream !== undefined;
  app.logger.info(
    { prefix: w.config.redis.prefix, streams: p.kinds.map((k) => k.stream), pulls: pulls ? 'on' : 'off' },
    `account ${w.name} started${pulls ? '' : ' (no UPSTREAM_URL: nothing is pulled; imported records only)'}`,
  );
}

/** Stops one account gracefully: no new jobs, the active ones get the grace period; its data stays in Redis. */
async function stopAccount(r: Running): Promise<void> {
  try {
    await r.worker.shutDown(undefined, `account ${r.name} stopped`);
  } finally {
    await r.worker.release();
    await r.worker.app.close();
  }
}

/**
 * Reads the file again and makes the running accounts what it says: a removed account stops, a changed one restarts
 * with its new settings, an added one starts. A file with a problem changes nothing: each problem is logged, one line.
 */
async function reload(p: Process, file: string): Promise<void> {
  let wanted: Wanted[];
  try {
    wanted = readWanted(p.io, p.kinds, file);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    for (const problem of err.problems) p.logger.error({ file }, `${problem}; the accounts run as they were until ACCOUNTS_FILE is fixed`);
    return;
  }
  const byName = new Map(wanted.map((w) => [w.name, w]));
  const stops: Running[] = [];
  for (const r of p.running.values()) {
    const w = byName.get(r.name);
    if (w?.key === r.key) continue;
    p.running.delete(r.name);
    stops.push(r);
    r.worker.app.logger.info(
      w
        ? `account ${r.name}: its settings changed in ACCOUNTS_FILE; restarting it with them`
        : `account ${r.name}: no longer in ACCOUNTS_FILE; stopping it (jobs in progress get the grace period, ` +
            `its data stays in Redis until \`inventory-sync accounts purge ${r.name}\`)`,
    );
  }
  const start = (w: Wanted) =>
    startAccount(p, w).catch((err: unknown) => {
      p.logger.error(
        { account: w.name, err: messageOf(err) },
        `account ${w.name} could not start: ${messageOf(err)}; it is tried again when ACCOUNTS_FILE changes`,
      );
    });
  const stopping = new Set(stops.map((r) => r.name));
  // An added account starts at once; a changed one once its old self stopped (its jobs' grace period).
  await Promise.all([
    ...stops.map(async (r) => {
      await stopAccount(r).catch((err: unknown) =>
        p.logger.warn({ account: r.name, err: messageOf(err) }, `account ${r.name} did not stop cleanly`),
      );
      const again = byName.get(r.name);
      if (again) await start(again);
    }),
    ...wanted.filter((w) => !p.running.has(w.name) && !stopping.has(w.name)).map(start),
  ]);
}

/** /metrics (every account's series, labelled), /healthz and /readyz (each account by name) for the process. */
async function serveHttp(p: Process, base: Config): Promise<WorkerHttp | undefined> {
  if (base.http.port === 0) return undefined;
  const where = workerHttpWhere(base);
  const metrics = accountMetrics(() => [...p.running.values()].map((r) => r.worker.app.metrics.registry));
  return listenOrConfigError(
    () =>
      startWorkerHttp({
        host: where.host,
        port: where.port,
        registry: metrics,
        readiness: [async () => ({ name: 'redis', ok: (await p.redis.ping()) === 'PONG' })],
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
 * the file is looked at every ACCOUNTS_RELOAD_SECONDS and the accounts follow it without a restart (docs/accounts.md).
 */
export async function runAccountsWorker(io: CliIo, kinds: readonly Kind[]): Promise<void> {
  const file = io.env.ACCOUNTS_FILE!.trim();
  let stamp = accountsFileStamp(file);
  const first = readWanted(io, kinds, file);
  // The deployment's settings (Redis, the HTTP port, the grace period, logs, traces) are every account's: the first's.
  const base = first[0]!.config;
  const logger = commandLogger(
    { ...base, accountName: undefined },
    io.stdout,
    first.flatMap((w) => secretValues(w.config)),
  );
  const redis = await connectRedisWaiting(base.redis, { logger, waitMs: base.redisStartWaitSeconds * 1000, signal: io.stop });
  await logEvictionWarning(redis, logger);
  let stopping = false;
  const p: Process = { io, kinds, logger, redis, running: new Map(), stopping: () => stopping };
  let http: WorkerHttp | undefined;
  let timer: NodeJS.Timeout | undefined;
  let reloading: Promise<void> = Promise.resolve();
  let started = false;
  try {
    // One tracer provider for the process (OTEL_* are the deployment's); each account's spans name its service account.
    p.tracing = await startProcessTracing(base, logger);
    // Every account starts, or none: a start that fails stops the process, as one account's does.
    const starts = await Promise.allSettled(first.map((w) => startAccount(p, w)));
    const failed = starts.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    started = true;
    http = await serveHttp(p, base);
    if (base.ingest.port !== undefined)
      logger.warn(
        'INGEST_PORT: with ACCOUNTS_FILE, `worker` takes no pushes; ' +
          'run `inventory-sync receive` beside it (POST /ingest/{account}/{stream})',
      );
    logger.info(
      {
        file,
        accounts: first.map((w) => w.name),
        http: http?.url ?? 'off',
        ingest: 'off',
        reloadSeconds: base.accountsReloadSeconds,
        graceSeconds: base.shutdownGraceSeconds,
      },
      `worker started with ${first.length} account(s) of ACCOUNTS_FILE` +
        `${http ? `; metrics at ${http.url}/metrics, health at ${http.url}/healthz and /readyz` : ''}`,
    );
    timer = setInterval(() => {
      const now = accountsFileStamp(file);
      if (now === stamp || stopping) return;
      stamp = now;
      reloading = reloading
        .then(() => reload(p, file))
        .catch((err: unknown) =>
          logger.error({ err: messageOf(err) }, 'ACCOUNTS_FILE could not be applied; looked at again when it changes'),
        );
    }, base.accountsReloadSeconds * 1000);
    timer.unref();
    await untilStopped(io.stop);
  } finally {
    stopping = true;
    clearInterval(timer);
    await reloading;
    // Every account stops taking jobs at once and their active jobs share one grace period.
    await Promise.all(
      [...p.running.values()].map((r) =>
        stopAccount(r).catch((err: unknown) =>
          logger.warn({ account: r.name, err: messageOf(err) }, `account ${r.name} did not stop cleanly`),
        ),
      ),
    );
    p.running.clear();
    await http?.close();
    await p.tracing?.shutdown();
    redis.disconnect();
    if (started) logger.info('worker stopped');
    logger.flush?.();
  }
}
