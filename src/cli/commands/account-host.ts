import { openApp, type AppContext } from '../../app/app-context.js';
import type { WatchedAccount } from '../../app/accounts-watch.js';
import { secretValues } from '../../app/command-context.js';
import type { catalogBudgetOf } from '../../app/build-deps.js';
import { messageOf } from '../../errors/message-of.js';
import type { DueRun } from '../../feed/due-loop.js';
import { addSecrets } from '../../log/logger.js';
import type { AccountMetrics } from '../../metrics/account-metrics.js';
import type { ReadyCheck } from '../../metrics/worker-http.js';
import type { Dispatcher, Turn } from '../../queue/dispatch/dispatcher.js';
import { accountReadiness, startAccountWorker, type AccountWorker } from './account-worker.js';
import { openPulls, type PullParts, type PullsProcess } from './account-pulls.js';

// One account of a `worker` with ACCOUNTS_FILE, as the process holds it: its entry always (its configuration), its pulls
// while it pulls a feed (account-pulls.ts: no service client), its whole parts and workers while it has a turn
// (src/queue/dispatch/).

/** An account of the file in this process. */
export interface Hosted {
  entry: WatchedAccount;
  /** An account that pulls: its pulls (their parts and schedules), opening or open, while it is in the file. */
  pulls?: Promise<PullParts>;
  /** Its whole parts, opening or open, while it has a turn here. */
  parts?: Promise<HostedParts>;
  /** Its whole parts once open (for /metrics). */
  open?: HostedParts;
  /** Its workers, while it has a turn here. */
  turn?: { worker: AccountWorker; readiness: readonly ReadyCheck[] };
}

export interface HostedParts {
  app: AppContext;
}

/** What the accounts of a process share. */
export interface HostProcess extends PullsProcess {
  hosted: Map<string, Hosted>;
  stopping: () => boolean;
  /** Where the process takes pushes (INGEST_PORT), for each account's line in `status`. */
  ingestUrl?: string;
  /** Its /metrics, once served: an account whose parts close leaves its counts in the totals. */
  metrics?: AccountMetrics;
  dispatcher?: Dispatcher;
  catalogs: ReturnType<typeof catalogBudgetOf>;
}

/** Whether the account pulls a feed (UPSTREAM_URL or a store): its pulls stay open for its scheduled pulls. */
export const pulls = (entry: WatchedAccount) => entry.config.upstream !== undefined || entry.config.shopify !== undefined;

/**
 * The account's metrics registry while its turn is open here. Between turns it has none, whether it pulls or not: its
 * series are read from Redis when asked for (account-closed.ts).
 */
export const registryOf = (h: Hosted) => h.open?.app.metrics.registry;

/** Opens the account's pulls (its schedules in the due set), once. */
export function pullsOf(p: HostProcess, h: Hosted): Promise<PullParts> {
  h.pulls ??= openPulls(p, h.entry).catch((err: unknown) => {
    h.pulls = undefined;
    throw err;
  });
  return h.pulls;
}

/** Opens the account's whole parts over the process's Redis (its pulls first, when it pulls), once. */
export function partsOf(p: HostProcess, h: Hosted): Promise<HostedParts> {
  h.parts ??= (async () => {
    const { entry } = h;
    addSecrets(p.logger, secretValues(entry.config));
    if (pulls(entry)) await pullsOf(p, h);
    const app = await openApp(p.io, {
      kinds: p.kinds,
      needs: { service: true },
      logTo: p.io.stdout,
      service: true,
      probe: false,
      config: entry.config,
      shared: {
        redis: p.redis,
        tracing: p.tracing,
        account: entry.name,
        catalogBudget: p.catalogs,
      },
    });
    h.open = { app };
    return h.open;
  })().catch((err: unknown) => {
    h.parts = undefined;
    throw err;
  });
  return h.parts;
}

/** Closes the account's whole parts (its counts kept in /metrics' totals). */
async function closeWhole(p: HostProcess, h: Hosted): Promise<void> {
  const parts = await h.parts?.catch(() => undefined);
  h.parts = undefined;
  h.open = undefined;
  if (!parts) return;
  try {
    await retire(p, h, parts.app.metrics.registry);
  } finally {
    await parts.app.close();
  }
}

/** Keeps a registry's counts in /metrics' totals. */
async function retire(p: HostProcess, h: Hosted, registry: HostedParts['app']['metrics']['registry']): Promise<void> {
  await p.metrics?.retire(registry).catch((err: unknown) => {
    p.logger.warn(
      { account: h.entry.name, err: messageOf(err) },
      `account ${h.entry.name}: its counts could not be kept in /metrics' totals`,
    );
  });
}

/** Closes the account's parts and its pulls (its counts kept in /metrics' totals); `forget`: its schedules leave the due set. */
export async function closeParts(p: HostProcess, h: Hosted, forget: boolean): Promise<void> {
  const graceMs = h.entry.config.shutdownGraceSeconds * 1000;
  try {
    await closeWhole(p, h);
  } finally {
    const pulled = await h.pulls?.catch(() => undefined);
    h.pulls = undefined;
    await pulled?.close(forget, graceMs);
  }
}

/** Starts the account's turn here: its workers, its operators' parts and its presence. */
export async function startTurn(p: HostProcess, name: string): Promise<Turn> {
  const h = p.hosted.get(name);
  if (!h) throw new Error(`account ${name} is not in this process's ACCOUNTS_FILE`);
  const { app } = await partsOf(p, h);
  // Its turn's operators' parts sample its charts and watch its feeds meanwhile (and resume a 401's pause).
  const worker = await startAccountWorker(p.io, app, p.kinds, { schedules: false, due: p.due });
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
        await worker.release();
        app.logger.debug(`account ${name}: its turn ended`);
        // Its whole parts close; an account that pulls keeps its pulls.
        if (p.hosted.get(name) === h) await closeWhole(p, h);
      }
    },
  };
}

/**
 * The due loop's run of a member whose run is not registered in this process: an account's wake (`<account>!wake`:
 * marked ready) or a scheduled pull of an account whose pulls are closed here (they open, and register the pull).
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
  await pullsOf(p, h);
  return p.due.registered(member);
}
