import { openApp, type AppContext } from '../../app/app-context.js';
import type { CliIo } from '../../app/cli-io.js';
import type { RedisHealth } from '../../app/redis-health.js';
import type { Runtime } from '../../app/runtime.js';
import { startIngest } from '../../app/start-ingest.js';
import type { Transform } from '../../feed/transform.js';
import type { Receiver } from '../../ingest/receiver.js';
import { startWorkerHttp, type WorkerHttp } from '../../metrics/worker-http.js';
import type { Kind } from '../../kinds/kind.js';
import { evictionWarnings } from '../../redis/eviction-policy.js';
import { untilStopped } from '../until-stopped.js';
import { listenOrConfigError } from '../listen-setting.js';
import { accountReadiness, startAccountWorker, workerHttpWhere } from './account-worker.js';

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
  const c = accountReadiness(app, runtime, redisHealth, kinds, stopping);
  const where = workerHttpWhere(config);
  return listenOrConfigError(
    () =>
      startWorkerHttp({
        host: where.host,
        port: where.port,
        registry: app.metrics.registry,
        readiness: [c.redis, c.writes, c.workers, c.streams],
        warnings: () => evictionWarnings(app.redis),
      }),
    where,
  );
}

/** The push receiver, when INGEST_PORT is set: the worker's account, with its queues and the transforms loaded at start. */
async function startPushReceiver(
  app: AppContext,
  kinds: readonly Kind[],
  transforms: ReadonlyMap<string, Transform>,
): Promise<Receiver | undefined> {
  const { config, deps } = app;
  if (config.ingest.port === undefined) return undefined;
  const where = { host: config.ingest.host, port: config.ingest.port, portSetting: 'INGEST_PORT', hostSetting: 'INGEST_HOST' };
  return listenOrConfigError(
    () =>
      startIngest([{ config, queues: deps.queues, transforms }], {
        redis: app.redis,
        kinds,
        logger: app.logger,
        registry: app.metrics.registry,
        port: config.ingest.port!,
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

/** `worker`: runs until io.stop aborts, then shuts down gracefully; with ACCOUNTS_FILE, every account (worker-accounts.ts). */
export async function runWorker(io: CliIo, kinds: readonly Kind[]): Promise<void> {
  if (io.env.ACCOUNTS_FILE?.trim()) {
    const { runAccountsWorker } = await import('./worker-accounts.js');
    return runAccountsWorker(io, kinds);
  }
  const app = await openApp(io, { kinds, needs: { service: true }, logTo: io.stdout, service: true, probe: false, waitForRedis: true });
  const account = await startAccountWorker(io, app, kinds);
  const { runtime, redisHealth } = account;
  let stopping = false;
  let http: WorkerHttp | undefined;
  let receiver: Receiver | undefined;
  try {
    http = await serveWorkerHttp(app, runtime, redisHealth, kinds, () => stopping);
    receiver = await startPushReceiver(app, kinds, account.transforms);
    logStarted(app, kinds, http, receiver);
    account.present(receiver?.url ?? null);
    await untilStopped(io.stop);
    stopping = true;
    await account.shutDown(receiver);
  } finally {
    await receiver?.close();
    await account.release();
    await http?.close();
    await app.close();
  }
}
