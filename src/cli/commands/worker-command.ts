import { Command } from 'commander';
import type { WorkerHttp } from '../../metrics/worker-http.js';
import type { CliIo } from '../../app/cli-io.js';
import { ExitCode } from '../exit-codes.js';
import type { CommandResult } from '../command-result.js';
import { untilStopped } from '../until-stopped.js';
import type { Kind } from '../../kinds/kind.js';

/**
 * `worker`: feed producers and workers until SIGTERM/SIGINT; then stops taking jobs, gives active ones
 * SHUTDOWN_GRACE_SECONDS to finish, and exits 0. Logs go to stdout as JSON lines (pretty on a terminal).
 */
export function workerCommand(io: CliIo, done: CommandResult, kinds: readonly Kind[]): Command {
  return new Command('worker')
    .description('run the feed producers (order polling, the stock-count schedule, BOM polling) and the workers until SIGTERM/SIGINT')
    .action(async () => {
      const [{ openApp }, { startRuntime }, { startWorkerHttp }, { startWorkerOps }, { evictionWarnings }] = await Promise.all([
        import('../../app/app-context.js'),
        import('../../app/runtime.js'),
        import('../../metrics/worker-http.js'),
        import('../../app/worker-ops.js'),
        import('../../redis/eviction-policy.js'),
      ]);
      const { pausedCheck } = await import('../../ops/paused-check.js');
      const { startRedisHealth } = await import('../../app/redis-health.js');
      const { startWhileRedisRefuses } = await import('../../app/connect-redis.js');
      const app = await openApp(io, {
        kinds,
        needs: { service: true, upstream: true },
        logTo: io.stdout,
        probe: false,
        waitForRedis: true,
      });
      const { config, logger, deps, metrics } = app;
      let stopping = false;
      let http: WorkerHttp | undefined;
      const ops = startWorkerOps(app);
      // A full or read-only Redis refuses what the start writes (queue settings, schedules): waited for, as Redis away is.
      const runtime = await startWhileRedisRefuses(
        () =>
          startRuntime(deps, {
            kinds,
            withSchedulers: true,
            workers: { breaker: { threshold: config.breaker.threshold, onTrip: () => ops.alertNow() } },
          }),
        { waitMs: config.redisStartWaitSeconds * 1000, logger, signal: io.stop },
      ).catch(async (err: unknown) => {
        await ops.stop();
        await app.close();
        throw err;
      });
      for (const [stream, worker] of runtime.workers.workers) metrics.watchWorker(worker, stream);
      // Redis full, read-only or away: said by /readyz, a gauge and an alert; the schedulers mended once it takes writes.
      const redisHealth = startRedisHealth(app, { mend: runtime.control?.mendSchedulers });
      try {
        if (config.http.port !== 0) {
          http = await startWorkerHttp({
            host: config.http.host,
            port: config.http.port,
            registry: metrics.registry,
            readiness: [
              async () => ({ name: 'redis', ok: (await app.redis.ping()) === 'PONG' }),
              redisHealth.ready,
              async () => {
                const running = [...runtime.workers.workers.values()].every((w) => w.isRunning());
                return {
                  name: 'workers',
                  ok: !stopping && running,
                  ...(stopping ? { detail: 'shutting down' } : running ? {} : { detail: 'a worker is not running' }),
                };
              },
              // A paused stream is not the worker's fault: still ready (restarting it would not help), with the reason.
              () =>
                pausedCheck(
                  app.redis,
                  deps.keys,
                  kinds.map((k) => k.stream),
                ),
            ],
            warnings: () => evictionWarnings(app.redis),
          });
        }
        logger.info(
          {
            prefix: config.redis.prefix,
            streams: kinds.map((k) => k.stream),
            http: http?.url ?? 'off',
            graceSeconds: config.shutdownGraceSeconds,
          },
          `worker started${http ? `; metrics at ${http.url}/metrics, health at ${http.url}/healthz and /readyz` : ''}`,
        );
        await untilStopped(io.stop);
        stopping = true;
        // Stop taking work everywhere at once; closing then waits for what is running.
        await Promise.all(
          [...runtime.workers.workers.values(), ...(runtime.control ? [runtime.control.worker] : [])].map((w) => w.pause(true)),
        );
        logger.info(
          { active: runtime.workers.active(), graceSeconds: config.shutdownGraceSeconds },
          'stopping: no new jobs; active ones get the grace period to finish',
        );
        await runtime.close(config.shutdownGraceSeconds * 1000);
        logger.info('worker stopped');
      } finally {
        redisHealth.stop();
        await ops.stop();
        await http?.close();
        await app.close();
      }
      done(ExitCode.ok);
    });
}
