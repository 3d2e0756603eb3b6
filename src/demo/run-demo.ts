import { createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openApp, type AppContext } from '../app/app-context.js';
import type { CliIo } from '../app/cli-io.js';
import { loadConfig, secretValues } from '../app/command-context.js';
import { untilStopped } from '../cli/until-stopped.js';
import { ExitCode, type ExitCodeValue } from '../cli/exit-codes.js';
import { runProgress } from '../cli/run-progress.js';
import { startDashboard, type Dashboard } from '../dashboard/dashboard-server.js';
import { evictionWarnings } from '../redis/eviction-policy.js';
import { startWorkerHttp } from '../metrics/worker-http.js';
import { startRuntime, syncOnce, type Runtime } from '../app/runtime.js';
import type { StreamName } from '../records/stream-name.js';
import type { SandboxProfile } from '../sandbox/sandbox-options.js';
import { demoExpectations, demoLives } from './demo-feed.js';
import { runRecordJobs } from '../app/run-jobs.js';
import { recordJob } from '../queue/record-jobs.js';
import { kindOf } from '../records/records.js';
import { deleteKeysUnder, redisSetting } from '../redis/connection.js';
import { renderDemoSummary } from './demo-summary.js';
import { demoConfig, startServices, type Cleanups } from './demo-services.js';
import type { Kind } from '../kinds/kind.js';

export interface DemoOptions {
  /** Exit after the summary instead of keeping the worker and dashboard up until Ctrl-C. */
  exit: boolean;
  dashboardPort: number;
  /** How the sandbox answers. Default: sandboxDefaults.profile. */
  profile?: SandboxProfile;
  /** Also a sandbox Shopify store feeding the service, by webhooks and pulls (demo-store.ts). */
  store?: boolean;
}

async function outcomesOf(app: AppContext): Promise<Partial<Record<StreamName, Record<string, number>>>> {
  const out: Partial<Record<StreamName, Record<string, number>>> = {};
  for (const stream of app.deps.queues.streams()) {
    const counts: Record<string, number> = {};
    for (const job of await app.deps.queues.get(stream).getCompleted(0, 999)) {
      const outcome = (job?.returnvalue as { outcome?: string } | undefined)?.outcome ?? 'synced';
      counts[outcome] = (counts[outcome] ?? 0) + 1;
    }
    out[stream] = counts;
  }
  return out;
}

/** Dashboard on the asked port, or any free one when it is taken. */
async function dashboardOn(port: number, o: Omit<Parameters<typeof startDashboard>[0], 'port'>): Promise<Dashboard> {
  try {
    return await startDashboard({ ...o, port });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    return startDashboard({ ...o, port: 0 });
  }
}

/** The worker's HTTP endpoints and the dashboard over the app, each closed by a cleanup. */
async function startSurfaces(app: AppContext, o: DemoOptions, kinds: readonly Kind[], cleanups: Cleanups) {
  const { config } = app;
  const http = await startWorkerHttp({
    host: '127.0.0.1',
    port: 0,
    registry: app.metrics.registry,
    readiness: [async () => ({ name: 'redis', ok: (await app.redis.ping()) === 'PONG' })],
    warnings: () => evictionWarnings(app.redis),
  });
  cleanups.unshift(() => http.close());
  const { user, password } = config.dashboard;
  const dashboard = await dashboardOn(o.dashboardPort, {
    kinds,
    host: '127.0.0.1',
    redis: app.redis,
    prefix: config.redis.prefix,
    auth: user && password ? { user, password } : null,
    budgets: config.service!.budgets,
    lagLimitSeconds: config.alerts.lagSeconds,
    logger: app.logger,
  });
  cleanups.unshift(() => dashboard.close());
  return { http, dashboard, user: user && password ? user : undefined };
}

/** Whether every stream the demo feed has records for synced and failed as many as the demo expects. */
function asExpected(summary: Awaited<ReturnType<typeof syncOnce>>): boolean {
  return Object.keys(demoExpectations.synced).every(
    (s) =>
      summary.perStream[s]?.completed === demoExpectations.synced[s] && summary.perStream[s]?.failed.length === demoExpectations.failed[s],
  );
}

/**
 * The main job on embedded defaults, for the kinds of the list: the sandbox with demo data, the bundled feed, Redis
 * (found or started), the worker's HTTP endpoints and the dashboard; syncs once, prints a summary, then (unless
 * `exit`) keeps the worker and dashboard up until Ctrl-C.
 */
/**
 * The orders' lives of the demo (demo-feed.ts), one snapshot at a time as the upstream would tell them, each line
 * saying what the snapshot did in the service; false when one of them failed.
 */
async function tellLives(app: AppContext, kinds: readonly Kind[], say: (line: string) => void, signal: AbortSignal): Promise<boolean> {
  const steps = demoLives().filter((s) => kinds.some((k) => k.stream === s.stream));
  if (!steps.length) return true;
  say('Orders that change (docs/orders.md, "The order\'s life"), one snapshot at a time:');
  let ok = true;
  for (const step of steps) {
    const [end] = await runRecordJobs(app.deps, [recordJob(kindOf(kinds, step.stream), step.record, 'feed').job], { kinds, signal });
    ok &&= end?.state === 'completed';
    say(`  ${step.told.padEnd(20)} ${end?.summary ?? end?.error ?? end?.state ?? 'not run'}`);
  }
  return ok;
}

export async function runDemo(io: CliIo, o: DemoOptions, kinds: readonly Kind[]): Promise<ExitCodeValue> {
  const base = loadConfig(io, kinds);
  const say = (line: string) => io.stdout.write(`${line}\n`);
  const cleanups: Cleanups = [];
  try {
    const services = await startServices(io, base, o.profile, kinds, say, cleanups);
    const config = demoConfig(base, services);
    const logFile = join(tmpdir(), `inventory-sync-demo-${process.pid}.log`);
    const logStream = createWriteStream(logFile);
    cleanups.push(() => new Promise((r) => logStream.end(r)));
    const app = await openApp(io, { kinds, config, logTo: logStream, service: true });
    cleanups.unshift(() => app.close());
    await deleteKeysUnder(app.redis, config.redis.prefix);
    const { http, dashboard, user } = await startSurfaces(app, o, kinds, cleanups);
    say(`Dashboard: ${dashboard.url}/${user ? '' : ' (no login: it listens on 127.0.0.1 only)'}`);
    say('');

    const progress = runProgress(io, true);
    const summary = await syncOnce(app.deps, { kinds, onProgress: progress.onProgress, signal: io.stop });
    progress.stop();
    const outcomes = await outcomesOf(app);
    const livesOk = await tellLives(app, kinds, say, io.stop);
    const store = o.store ? await (await import('./demo-store.js')).demoStore(io, config, kinds, say, cleanups, logStream) : undefined;
    let runtime: Runtime | undefined;
    if (!o.exit && !io.stop.aborted) {
      runtime = await startRuntime(app.deps, { kinds, withSchedulers: true });
      runtime.workers.eachWorker((worker, stream) => app.metrics.watchWorker(worker, stream));
      cleanups.unshift(() => runtime!.close(config.shutdownGraceSeconds * 1000));
    }
    const ok = asExpected(summary) && livesOk && (store?.ok ?? true);
    io.stdout.write(
      renderDemoSummary({
        summary,
        outcomes,
        asExpected: ok,
        dashboardUrl: dashboard.url,
        dashboardUser: user,
        metricsUrl: http.url,
        redisSetting: redisSetting({ ...base.redis, url: services.redis.url }),
        privateRedis: services.redis.private,
        prefix: config.redis.prefix,
        storePrefix: store?.prefix,
        logFile,
        staysUp: Boolean(runtime),
      }),
    );
    if (runtime) await untilStopped(io.stop);
    return ok ? ExitCode.ok : ExitCode.someFailed;
  } finally {
    for (const c of cleanups) await c().catch(() => undefined);
  }
}
