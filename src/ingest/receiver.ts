import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { defaultAccount } from '../../config/accounts.js';
import { defaults } from '../../config/defaults.js';
import { messageOf } from '../errors/message-of.js';
import { findKind } from '../records/records.js';
import { answer } from './answer.js';
import { backlogOf } from './backlog.js';
import { handlePush, type PushAccount, type PushContext } from './handle-push.js';
import { ingestMetrics, NO_ACCOUNT, UNKNOWN_ACCOUNT } from './ingest-metrics.js';
import type { AccountsReceiverOptions, ReceiverAccount, ReceiverLimits, ReceiverOptions } from './receiver-options.js';
import { senderLimit } from './sender-limit.js';

export type { AccountsReceiverOptions, ReceiverAccount, ReceiverLimits, ReceiverOptions };

/** A running receiver: where it listens, and how to stop it. */
export interface Receiver {
  port: number;
  /** http://host:port */
  url: string;
  /** Stops accepting, lets requests in flight finish (their pushes are stored and answered), then resolves. */
  close(): Promise<void>;
}

/** A receiver of several accounts: the accounts it serves can change while it runs (ACCOUNTS_FILE read again). */
export interface AccountsReceiver extends Receiver {
  /**
   * Serves these accounts from the next request on: an account added is taken, one left out is answered 404. An
   * account given as the same object as before keeps its counts (its backlog); pushes in flight finish as they began.
   */
  serve(accounts: readonly ReceiverAccount[]): void;
}

/** `/ingest/{stream}` or `/ingest/{account}/{stream}`, a trailing slash and a query allowed. */
const PATH = /^\/ingest\/([^/?#]+)(?:\/([^/?#]+))?\/?(?:\?.*)?$/;

function limitsOf(given: Partial<ReceiverLimits> = {}): ReceiverLimits {
  return {
    maxBodyBytes: defaults.ingestMaxBodyBytes,
    ratePerSecond: defaults.ingestRatePerSecond,
    maxBacklog: defaults.ingestMaxBacklog,
    maxRecordBytes: defaults.maxRecordBytes,
    toleranceSeconds: defaults.ingestToleranceSeconds,
    seenSeconds: defaults.ingestSeenSeconds,
    storeTimeoutMs: defaults.ingestStoreTimeoutMs,
    retryAfterSeconds: defaults.ingestRetryAfterSeconds,
    backlogCacheMs: defaults.ingestBacklogCacheMs,
    closeGraceMs: 10_000,
    ...given,
  };
}

/** The accounts served, by name, each with its own backlog counts (under its prefix) and its logger. */
interface Routes {
  byName: ReadonlyMap<string, PushAccount>;
  byAccount: ReadonlyMap<ReceiverAccount, PushAccount>;
  /** The one account `/ingest/{stream}` is for; none when there are several. */
  only?: PushAccount;
}

/**
 * The routes of the accounts: each account with its own backlog counts (under its prefix) and its logger; an account
 * that was served before as the same object keeps its entry (and its counts).
 */
function routesOf(ctx: PushContext, accounts: readonly ReceiverAccount[], before?: ReadonlyMap<ReceiverAccount, PushAccount>): Routes {
  const byName = new Map<string, PushAccount>();
  const byAccount = new Map<ReceiverAccount, PushAccount>();
  for (const a of accounts) {
    if (byName.has(a.name)) throw new Error(`push receiver: the account "${a.name}" is given twice`);
    let served = before?.get(a);
    if (!served) {
      const backlogs = new Map<string, () => Promise<number>>();
      const backlog = (stream: string) => {
        let count = backlogs.get(stream);
        if (!count) backlogs.set(stream, (count = backlogOf(a.queues.get(stream), ctx.limits.backlogCacheMs, ctx.now)));
        return count();
      };
      served = { ...a, logger: a.logger ?? ctx.o.logger, backlog };
    }
    byName.set(a.name, served);
    byAccount.set(a, served);
  }
  if (byName.size === 0) throw new Error('push receiver: no account to serve');
  return { byName, byAccount, only: byName.size === 1 ? [...byName.values()][0] : undefined };
}

function pushContext(o: AccountsReceiverOptions): PushContext {
  const limits = limitsOf(o.limits);
  return {
    o,
    limits,
    senders: senderLimit(limits.ratePerSecond),
    metrics: ingestMetrics(o.registry, { labelAccounts: o.labelAccounts }),
    now: o.now ?? Date.now,
  };
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** What a request was, for the metrics: the account (never a name the receiver does not serve), the stream, the answer. */
interface Routed {
  account: string;
  stream: string;
  status: number;
}

/**
 * Routes one request: `POST /ingest/{account}/{stream}`, `POST /ingest/{stream}` (the only account), `GET /healthz`;
 * answers its status (0: the sender went away). An account the receiver does not serve is answered 404 with one
 * constant message: the answer names no account.
 */
async function route(ctx: PushContext, current: () => Promise<Routes>, req: IncomingMessage, res: ServerResponse): Promise<Routed> {
  const url = req.url ?? '/';
  if (url === '/healthz' || url.startsWith('/healthz?')) {
    const ok = ctx.o.redis.status === 'ready';
    answer(res, ok ? 200 : 503, ok ? { ok } : { ok, error: `Redis is not connected (${ctx.o.redis.status})` });
    return { account: NO_ACCOUNT, stream: '-', status: ok ? 200 : 503 };
  }
  const routes = await current();
  const form = routes.only ? '/ingest/{stream}' : '/ingest/{account}/{stream}';
  const match = PATH.exec(url);
  if (!match) {
    answer(res, 404, { error: `not found: push to POST ${form}` });
    return { account: NO_ACCOUNT, stream: '-', status: 404 };
  }
  const named = match[2] === undefined ? undefined : decoded(match[1]!);
  const name = decoded(match[2] ?? match[1]!);
  const account = named === undefined ? routes.only : routes.byName.get(named);
  const accountLabel = account?.name ?? (named === undefined ? NO_ACCOUNT : UNKNOWN_ACCOUNT);
  const kind = findKind(ctx.o.kinds, name);
  if (req.method !== 'POST') {
    answer(res, 405, { error: 'use POST' }, { allow: 'POST' });
    return { account: accountLabel, stream: kind ? name : 'unknown', status: 405 };
  }
  if (!account) {
    const error =
      named === undefined
        ? 'not found: this receiver serves several accounts; push to POST /ingest/{account}/{stream}'
        : 'not found: no such account; push to POST /ingest/{account}/{stream} with an account of the deployment';
    answer(res, 404, { error });
    return { account: accountLabel, stream: kind ? name : 'unknown', status: 404 };
  }
  if (!kind) {
    answer(res, 404, { error: `unknown stream "${name}"`, streams: ctx.o.kinds.map((k) => k.stream) });
    return { account: accountLabel, stream: 'unknown', status: 404 };
  }
  return { account: accountLabel, stream: name, status: await handlePush(ctx, account, req, res, kind) };
}

/**
 * Starts the push receiver (docs/push.md) of one set of queues and secrets: `POST /ingest/{stream}` with a signed
 * JSON body (one record or an array) is answered 2xx only once its records are jobs in Redis; `GET /healthz` says
 * whether Redis is connected.
 */
export function startReceiver(o: ReceiverOptions): Promise<Receiver> {
  const { queues, keys, signing, transforms, ...shared } = o;
  return startAccountsReceiver({
    ...shared,
    accounts: [{ name: defaultAccount, queues, keys, signing, ...(transforms ? { transforms } : {}) }],
  });
}

/**
 * Starts the push receiver of several accounts (docs/push.md, "Many accounts"): `POST /ingest/{account}/{stream}`,
 * each account's pushes checked with its own secrets, stored under its own prefix, limited by its own backlog; with
 * one account `POST /ingest/{stream}` too.
 */
export async function startAccountsReceiver(o: AccountsReceiverOptions): Promise<AccountsReceiver> {
  const ctx = pushContext(o);
  let routes = routesOf(ctx, o.accounts);
  // The accounts' source is looked at (when due) before a request is routed: an account just added is served.
  const current = async () => {
    await o.refreshAccounts?.();
    return routes;
  };
  let closing = false;
  const server = createServer((req, res) => {
    // While closing, each answer closes its connection: a keep-alive sender reconnects elsewhere.
    if (closing) res.setHeader('connection', 'close');
    res.once('finish', () => {
      if (closing) setImmediate(() => server.closeIdleConnections());
    });
    route(ctx, current, req, res)
      .then(({ account, stream, status }) => {
        if (status) ctx.metrics.delivery(account, stream, status);
      })
      .catch((err: unknown) => {
        o.logger.error({ err: messageOf(err) }, 'push receiver: an unexpected error (answered 500)');
        answer(res, 500, { error: 'internal error' });
      });
  });
  // A sender that sends its headers or body slowly does not hold a connection for long.
  server.headersTimeout = 20_000;
  server.requestTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host ?? defaults.ingestHost, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port, address, family } = server.address() as AddressInfo;
  const host = family === 'IPv6' ? `[${address}]` : address;
  return {
    port,
    url: `http://${host}:${port}`,
    serve: (accounts) => {
      routes = routesOf(ctx, accounts, routes.byAccount);
    },
    close: () =>
      new Promise<void>((resolve) => {
        closing = true;
        const cut = setTimeout(() => server.closeAllConnections(), ctx.limits.closeGraceMs);
        cut.unref();
        server.close(() => {
          clearTimeout(cut);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
