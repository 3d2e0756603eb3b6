import type { AppContext } from '../../app/app-context.js';
import type { CliIo } from '../../app/cli-io.js';
import { startWhileRedisRefuses } from '../../app/connect-redis.js';
import { startRedisHealth, type RedisHealth } from '../../app/redis-health.js';
import { startRuntime, type Runtime } from '../../app/runtime.js';
import { startWorkerOps } from '../../app/worker-ops.js';
import { loadTransforms, transformSettingsOf } from '../../feed/load-transforms.js';
import { storeOf } from '../../app/feed-sources.js';
import type { Transform } from '../../feed/transform.js';
import type { Receiver } from '../../ingest/receiver.js';
import type { Kind } from '../../kinds/kind.js';
import type { ReadyCheck } from '../../metrics/worker-http.js';
import { holdChecks } from '../../ops/hold-checks.js';
import { startWorkerPresence } from '../../ops/worker-presence.js';
import type { Config } from '../../../config/read-config.js';
import type { DueLoop } from '../../feed/due-loop.js';

// One account's part of `worker`: worker-run.ts runs the environment's account, worker-accounts.ts each of ACCOUNTS_FILE.

export type WorkerOps = ReturnType<typeof startWorkerOps>;

/** How one account's work runs. */
export interface AccountWorkerOptions {
  /** Whether the account's scheduled pulls run with its workers (default); the `worker` of ACCOUNTS_FILE runs them apart. */
  schedules?: boolean;
  /** The process's due loop, which runs every account's scheduled pulls. */
  due?: DueLoop;
}

/** The workers, and the scheduled pulls when the feed is configured; a start that Redis refuses is waited for. */
async function startWorkerRuntime(
  io: CliIo,
  app: AppContext,
  ops: WorkerOps,
  kinds: readonly Kind[],
  o: AccountWorkerOptions,
): Promise<Runtime> {
  const { config, logger, deps } = app;
  // A full or read-only Redis refuses what the start writes (queue settings, schedules): waited for, as Redis away is.
  return startWhileRedisRefuses(
    () =>
      startRuntime(deps, {
        kinds,
        withSchedulers: deps.upstream !== undefined && o.schedules !== false,
        ...(o.due ? { due: o.due } : {}),
        workers: {
          breaker: { threshold: config.breaker.threshold, onTrip: () => ops.alertNow() },
        },
      }),
    { waitMs: config.redisStartWaitSeconds * 1000, logger, signal: io.stop },
  );
}

/** An account's /readyz lines: Redis answers and takes writes, its workers run, and its holds (always ok, said in detail). */
export function accountReadiness(
  app: AppContext,
  runtime: Runtime,
  redisHealth: RedisHealth,
  kinds: readonly Kind[],
  stopping: () => boolean,
): { redis: ReadyCheck; writes: ReadyCheck; workers: ReadyCheck; streams: ReadyCheck } {
  const workers: ReadyCheck = async () => {
    const running = runtime.workers.running();
    const detail = stopping() ? { detail: 'shutting down' } : running ? {} : { detail: 'a worker is not running' };
    return { name: 'workers', ok: !stopping() && running, ...detail };
  };
  // Every hold's readiness from one place: Redis refusing writes fails it; a held stream does not (restarting would not help).
  const holds = holdChecks({ redis: app.redis, keys: app.deps.keys, streams: kinds.map((k) => k.stream), writes: redisHealth.watch.state });
  const redis: ReadyCheck = async () => ({ name: 'redis', ok: (await app.redis.ping()) === 'PONG' });
  return { redis, writes: holds.writes, workers, streams: holds.streams };
}

/** Where the worker's endpoints listen (WORKER_HTTP_PORT, WORKER_HTTP_HOST), as listenOrConfigError names them. */
export function workerHttpWhere(config: Config) {
  return {
    host: config.http.host,
    port: config.http.port,
    portSetting: 'WORKER_HTTP_PORT',
    hostSetting: 'WORKER_HTTP_HOST',
    alternative: '0 turns the endpoints off',
  };
}

/** Stops taking pushes and jobs everywhere at once, and gives what is running one grace period. */
async function shutDown(app: AppContext, runtime: Runtime, receiver: Receiver | undefined, stopped = 'worker stopped'): Promise<void> {
  const { config, logger } = app;
  logger.info(
    { active: runtime.workers.active(), graceSeconds: config.shutdownGraceSeconds },
    'stopping: no new jobs; active ones get the grace period to finish',
  );
  // The runtime's close stops every worker fetching at once and times the grace period from their pause. The workers
  // are not paused before it: a worker paused already is not waited for by its close, whose grace then never ends.
  // Pushes in flight are stored and answered before the receiver's close resolves.
  await Promise.all([receiver?.close(), runtime.close(config.shutdownGraceSeconds * 1000)]);
  logger.info(stopped);
}

/** What `worker` runs for one account: its workers and schedules, its operators' parts, its Redis health. */
export interface AccountWorker {
  app: AppContext;
  runtime: Runtime;
  redisHealth: RedisHealth;
  transforms: ReadonlyMap<string, Transform>;
  /** Says in Redis that this process works the account (for `status`), until released. */
  present(ingest: string | null): void;
  /** Stops taking pushes and jobs, and gives the active ones the grace period (SHUTDOWN_GRACE_SECONDS). */
  shutDown(receiver?: Receiver, stopped?: string): Promise<void>;
  /** Stops the presence, the Redis health and the operators' parts (the app is the caller's to close). */
  release(): Promise<void>;
}

/** Starts one account's work on its opened app; a failed start closes the app and throws. */
export async function startAccountWorker(
  io: CliIo,
  app: AppContext,
  kinds: readonly Kind[],
  o: AccountWorkerOptions = {},
): Promise<AccountWorker> {
  // TRANSFORMS checked against the kinds before any work: a wrong one stops the start (exit 2, one line each).
  const transforms = await loadTransforms(transformSettingsOf(app.config.transforms ?? [], kinds, storeOf(app.config)), kinds).catch(
    async (err: unknown) => {
      await app.close();
      throw err;
    },
  );
  const ops = startWorkerOps(app);
  const runtime = await startWorkerRuntime(io, app, ops, kinds, o).catch(async (err: unknown) => {
    await ops.stop();
    await app.close();
    throw err;
  });
  let redisHealth: ReturnType<typeof startRedisHealth>;
  try {
    // Every record worker.
    runtime.workers.eachWorker((worker, stream) => app.metrics.watchWorker(worker, stream));
    // Redis full, read-only or away: said by /readyz, a gauge and an alert.
    redisHealth = startRedisHealth(app);
  } catch (err) {
    // Its workers run already: a start that fails past them leaves none (a turn would hold its account, doing nothing).
    await runtime.close(0).catch(() => undefined);
    await ops.stop();
    throw err;
  }
  let presence: { stop(): Promise<void> } | undefined;
  return {
    app,
    runtime,
    redisHealth,
    transforms,
    present(ingest) {
      presence = startWorkerPresence(app.redis, app.deps.keys, { pulls: app.deps.upstream !== undefined, ingest });
    },
    shutDown: (receiver, stopped) => shutDown(app, runtime, receiver, stopped),
    async release() {
      await presence?.stop();
      redisHealth.stop();
      await ops.stop();
    },
  };
}
