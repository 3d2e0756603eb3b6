import { openApp, type AppContext } from '../../app/app-context.js';
import type { CliIo } from '../../app/cli-io.js';
import { startWhileRedisRefuses } from '../../app/connect-redis.js';
import { startRedisHealth, type RedisHealth } from '../../app/redis-health.js';
import { startRuntime, type Runtime } from '../../app/runtime.js';
import { ingestAccountName, startIngest } from '../../app/start-ingest.js';
import { loadAccounts } from '../../app/command-context.js';
import { loadTransforms } from '../../feed/load-transforms.js';
import type { Transform } from '../../feed/transform.js';
import { startWorkerOps } from '../../app/worker-ops.js';
import type { Receiver } from '../../ingest/receiver.js';
import { startWorkerHttp, type WorkerHttp } from '../../metrics/worker-http.js';
import type { Kind } from '../../kinds/kind.js';
import { holdChecks } from '../../ops/hold-checks.js';
import { startWorkerPresence } from '../../ops/worker-presence.js';
import { evictionWarnings } from '../../redis/eviction-policy.js';
import { untilStopped } from '../until-stopped.js';
import { listenOrConfigError } from '../listen-setting.js';

type WorkerOps = ReturnType<typeof startWorkerOps>;

/** The workers, and the scheduled pulls when the feed is configured; a start that Redis refuses is waited for. */
async function startWorkerRuntime(io: CliIo, app: AppContext, ops: WorkerOps, kinds: readonly Kind[]): Promise<Runtime> {
  const { config, logger, deps } = app;
  // A full or read-only Redis refuses what the start writes (queue settings, schedules): waited for, as Redis away is.
  return startWhileRedisRefuses(
    () =>
      startRuntime(deps, {
        kinds,
        withSchedulers: deps.upstream !== undefined,
        workers: { breaker: { threshold: config.breaker.threshold, onTrip: () => ops.alertNow() } },
      }),
    { waitMs: config.redisStartWaitSeconds * 1000, logger, signal: io.stop },
  );
}

/** /metrics, /healthz and /readyz (WORKER_HTTP_PORT; 0: none). */
async function serveWorkerHttp(
  app: AppContext,
  runtime: Runtime,
  redisHealth: RedisHealth,
  kinds: readonly Kind[],
  stopping: () => boolean,
): Promise<WorkerHttp | undefined> {
  const { config } = app;
  if (config.http.port === 0) return undefined;
  const workersCheck = async () => {
    const running = [...runtime.workers.workers.values()].every((w) => w.isRunning());
    const detail = stopping() ? { detail: 'shutting down' } : running ? {} : { detail: 'a worker is not running' };
    return { name: 'workers', ok: !stopping() && running, ...detail };
  };
  // Every hold's readiness from one place: Redis refusing writes fails it; a held stream does not (restarting would not help).
  const holds = holdChecks({ redis: app.redis, keys: app.deps.keys, streams: kinds.map((k) => k.stream), writes: redisHealth.watch.state });
  const where = {
    host: config.http.host,
    port: config.http.port,
    portSetting: 'WORKER_HTTP_PORT',
    hostSetting: 'WORKER_HTTP_HOST',
    alternative: '0 turns the endpoints off',
  };
  return listenOrConfigError(
    () =>
      startWorkerHttp({
        host: where.host,
        port: where.port,
        registry: app.metrics.registry,
        readiness: [async () => ({ name: 'redis', ok: (await app.redis.ping()) === 'PONG' }), holds.writes, workersCheck, holds.streams],
        warnings: () => evictionWarnings(app.redis),
      }),
    where,
  );
}

/**
 * The push receiver, when INGEST_PORT is set: one for every account (ACCOUNTS_FILE's, or the `--account` one), the
 * worker's own account with its queues and the transforms loaded at start.
 */
async function startPushReceiver(
  io: CliIo,
  app: AppContext,
  kinds: readonly Kind[],
  transforms: ReadonlyMap<string, Transform>,
): Promise<Receiver | undefined> {
  const { config, deps } = app;
  if (config.ingest.port === undefined) return undefined;
  const own = ingestAccountName(config);
  const accounts = loadAccounts(io, kinds, { service: true }).map((a) =>
    a.name === own ? { config, queues: deps.queues, transforms } : { config: a.config },
  );
  // ACCOUNTS_FILE read again when it changes: the receiver serves an account added, and answers one removed 404.
  const file = io.env.ACCOUNTS_FILE?.trim();
  const read = () =>
    loadAccounts(io, kinds, { service: true }).map((a) =>
      a.name === own ? { config: a.config, queues: deps.queues } : { config: a.config },
    );
  const where = { host: config.ingest.host, port: config.ingest.port, portSetting: 'INGEST_PORT', hostSetting: 'INGEST_HOST' };
  return listenOrConfigError(
    () =>
      startIngest(accounts, {
        redis: app.redis,
        kinds,
        logger: app.logger,
        registry: app.metrics.registry,
        port: config.ingest.port!,
        ...(file ? { reload: { file, read } } : {}),
      }),
    where,
  );
}

function logStarted(app: AppContext, kinds: readonly Kind[], http: WorkerHttp | undefined, receiver: Receiver | undefined): void {
  const { config, logger } = app;
  const pulls = app.deps.upstream !== undefined;
  if (!pulls) logger.info('no UPSTREAM_URL: nothing is pulled; the workers take pushed (INGEST_PORT) and imported records only');
  logger.info(
    {
      prefix: config.redis.prefix,
      streams: kinds.map((k) => k.stream),
      http: http?.url ?? 'off',
      ingest: receiver?.url ?? 'off',
      pulls: pulls ? 'on' : 'off',
      graceSeconds: config.shutdownGraceSeconds,
    },
    `worker started${http ? `; metrics at ${http.url}/metrics, health at ${http.url}/healthz and /readyz` : ''}` +
      `${receiver ? `; pushes at ${receiver.url}/ingest/{stream}` : ''}`,
  );
}

/** Stops taking pushes and jobs everywhere at once, then waits for what is running (the grace period). */
async function shutDown(app: AppContext, runtime: Runtime, receiver: Receiver | undefined): Promise<void> {
  const { config, logger } = app;
  const pausing = Promise.all(
    [...runtime.workers.workers.values(), ...(runtime.control ? [runtime.control.worker] : [])].map((w) => w.pause(true)),
  );
  // Pushes in flight are stored and answered before the receiver's close resolves.
  await Promise.all([pausing, receiver?.close()]);
  logger.info(
    { active: runtime.workers.active(), graceSeconds: config.shutdownGraceSeconds },
    'stopping: no new jobs; active ones get the grace period to finish',
  );
  await runtime.close(config.shutdownGraceSeconds * 1000);
  logger.info('worker stopped');
}

/** `worker`: runs until io.stop aborts, then shuts down gracefully. */
export async function runWorker(io: CliIo, kinds: readonly Kind[]): Promise<void> {
  const app = await openApp(io, { kinds, needs: { service: true }, logTo: io.stdout, probe: false, waitForRedis: true });
  // TRANSFORMS checked against the kinds before any work: a wrong one stops the start (exit 2, one line each).
  const transforms = await loadTransforms(app.config.transforms ?? [], kinds).catch(async (err: unknown) => {
    await app.close();
    throw err;
  });
  const ops = startWorkerOps(app);
  const runtime = await startWorkerRuntime(io, app, ops, kinds).catch(async (err: unknown) => {
    await ops.stop();
    await app.close();
    throw err;
  });
  for (const [stream, worker] of runtime.workers.workers) app.metrics.watchWorker(worker, stream);
  // Redis full, read-only or away: said by /readyz, a gauge and an alert; the schedulers mended once it takes writes.
  const redisHealth = startRedisHealth(app, { mend: runtime.control?.mendSchedulers });
  let stopping = false;
  let http: WorkerHttp | undefined;
  let receiver: Receiver | undefined;
  let presence: { stop(): Promise<void> } | undefined;
  try {
    http = await serveWorkerHttp(app, runtime, redisHealth, kinds, () => stopping);
    receiver = await startPushReceiver(io, app, kinds, transforms);
    logStarted(app, kinds, http, receiver);
    presence = startWorkerPresence(app.redis, app.deps.keys, { pulls: app.deps.upstream !== undefined, ingest: receiver?.url ?? null });
    await untilStopped(io.stop);
    stopping = true;
    await shutDown(app, runtime, receiver);
  } finally {
    await presence?.stop();
    await receiver?.close();
    redisHealth.stop();
    await ops.stop();
    await http?.close();
    await app.close();
  }
}
