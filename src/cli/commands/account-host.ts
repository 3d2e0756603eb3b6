import { openApp, type AppContext, type ProcessTracing } from '../../app/app-context.js';
import type { WatchedAccount } from '../../app/accounts-watch.js';
import type { CliIo } from '../../app/cli-io.js';
import { secretValues } from '../../app/command-context.js';
import { startSchedules } from '../../app/start-schedules.js';
import type { catalogBudgetOf } from '../../app/build-deps.js';
import { messageOf } from '../../errors/message-of.js';
import type { Control } from '../../feed/control.js';
import type { DueLoop, DueRun } from '../../feed/due-loop.js';
import type { Kind } from '../../kinds/kind.js';
import { addSecrets, type Logger } from '../../log/logger.js';
import type { AccountMetrics } from '../../metrics/account-metrics.js';
import type { ReadyCheck } from '../../metrics/worker-http.js';
import type { RedisConnection as Redis } from '../../redis/connection.js';
import type { Dispatcher, Turn } from '../../queue/dispatch/dispatcher.js';
import { accountReadiness, startAccountWorker, type AccountWorker, type WorkerOps } from './account-worker.js';
import { startWorkerOps } from '../../app/worker-ops.js';

// One account of a `worker` with ACCOUNTS_FILE, as the process holds it: its entry always (its configuration), its parts
// while it has a turn or pulls a feed, its workers while it has a turn (src/queue/dispatch/).

/** An account of the file in this process. */
export interface Hosted {
  entry: WatchedAccount;
  /** Its parts (and its scheduled pulls), opening or open. */
  parts?: Promise<HostedParts>;
  /** Its parts once open (for /metrics). */
  open?: HostedParts;
  /** Its workers, while it has a turn here. */
  turn?: { worker: AccountWorker; readiness: readonly ReadyCheck[] };
}

export interface HostedParts {
  app: AppContext;
  control?: Control;
  /** An account that pulls: its operators' parts (alerts, for feed lag too; the chart samples), open with its pulls. */
  ops?: WorkerOps;
}

/** What the accounts of a process share. */
export interface HostProcess {
  io: CliIo;
  kinds: readonly Kind[];
  logger: Logger;
  redis: Redis;
  tracing?: ProcessTracing;
  hosted: Map<string, Hosted>;
  stopping: () => boolean;
  /** Where the process takes pushes (INGEST_PORT), for each account's line in `status`. */
  ingestUrl?: string;
  /** Its /metrics, once served: an account whose parts close leaves its counts in the totals. */
  metrics?: AccountMetrics;
  due: DueLoop;
  dispatcher?: Dispatcher;
  catalogs: ReturnType<typeof catalogBudgetOf>;
}

/** Whether the account pulls a feed (UPSTREAM_URL or a store): its parts stay open for its scheduled pulls. */
export const pulls = (entry: WatchedAccount) => entry.config.upstream !== undefined || entry.config.shopify !== undefined;

/** Opens the account's parts over the process's Redis (and its scheduled pulls when it pulls), once. */
export function partsOf(p: HostProcess, h: Hosted): Promise<HostedParts> {
  h.parts ??= (async () => {
    const { entry } = h;
    addSecrets(p.logger, secretValues(entry.config));
    const app = await openApp(p.io, {
      kinds: p.kinds,
      needs: { service: true },
      logTo: p.io.stdout,
      service: true,
      probe: false,
      config: entry.config,
      shared: { redis: p.redis, tracing: p.tracing, account: entry.name, catalogBudget: p.catalogs },
    });
    try {
      const control = app.deps.upstream ? await startSchedules(app.deps, p.kinds, p.due) : undefined;
      // Between turns its charts are sampled once a minute (its turn samples them at their pace: startTurn).
      const ops = control ? startWorkerOps(app, { idle: true }) : undefined;
      h.open = { app, ...(control ? { control } : {}), ...(ops ? { ops } : {}) };
      return h.open;
    } catch (err) {
      await app.close();
      throw err;
    }
  })().catch((err: unknown) => {
    h.parts = undefined;
    throw err;
  });
  return h.parts;
}

/** Closes the account's parts (its counts kept in /metrics' totals); `forget`: its schedules leave the due set. */
export async function closeParts(p: HostProcess, h: Hosted, forget: boolean): Promise<void> {
  const parts = await h.parts?.catch(() => undefined);
  h.parts = undefined;
  h.open = undefined;
  if (!parts) return;
  try {
    await parts.ops?.stop();
    if (forget) await parts.control?.removeSchedules();
    await parts.control?.close(parts.app.config.shutdownGraceSeconds * 1000);
    await p.metrics?.retire(parts.app.metrics.registry).catch((err: unknown) => {
      p.logger.warn(
        { account: h.entry.name, err: messageOf(err) },
        `account ${h.entry.name}: its counts could not be kept in /metrics' totals`,
      );
    });
  } finally {
    await parts.app.close();
  }
}

/** Starts the account's turn here: its workers, its operators' parts and its presence. */
export async function startTurn(p: HostProcess, name: string): Promise<Turn> {
  const h = p.hosted.get(name);
  if (!h) throw new Error(`account ${name} is not in this process's ACCOUNTS_FILE`);
  const { app, ops } = await partsOf(p, h);
  const worker = await startAccountWorker(p.io, app, p.kinds, { schedules: false, due: p.due, ...(ops ? { ops } : {}) });
  ops?.busy(true);
  const c = accountReadiness(app, worker.runtime, worker.redisHealth, p.kinds, p.stopping);
  worker.present(p.ingestUrl ?? null);
  h.turn = { worker, readiness: [c.writes, c.workers, c.streams] };
  app.logger.debug(`account ${name}: its turn began`);
  return {
    active: () => worker.runtime.workers.active(),
    async close() {
      try {
        await worker.runtime.close(app.config.shutdownGraceSeconds * 1000);
      } finally {
        h.turn = undefined;
        ops?.busy(false);
        await worker.release();
        app.logger.debug(`account ${name}: its turn ended`);
        // An account that pulls keeps its parts for its pulls; the others hold nothing once closed.
        if (!pulls(h.entry) && p.hosted.get(name) === h) await closeParts(p, h, false);
      }
    },
  };
}

/**
 * The due loop's run of a member whose run is not registered in this process: an account's wake (`<account>!wake`:
 * marked ready) or a scheduled pull of an account whose parts are closed here (they open, and register the pull).
 */
export async function resolveDue(p: HostProcess, member: string): Promise<DueRun | undefined> {
  const wake = /^(.+)!wake$/.exec(member);
  if (wake) {
    const name = wake[1]!;
    if (!p.hosted.has(name) || !p.dispatcher) return undefined;
    const dispatcher = p.dispatcher;
    return async () => {
      await dispatcher.mark(name);
      return undefined;
    };
  }
  const name = member.split('/')[0]!;
  const h = p.hosted.get(name);
  if (!h || !pulls(h.entry)) return undefined;
  await partsOf(p, h);
  return p.due.registered(member);
}
