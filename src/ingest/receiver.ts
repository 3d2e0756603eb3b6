import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { defaults } from '../../config/defaults.js';
import { messageOf } from '../errors/message-of.js';
import { findKind } from '../records/records.js';
import { answer } from './answer.js';
import { backlogOf } from './backlog.js';
import { handlePush, type PushContext } from './handle-push.js';
import { ingestMetrics } from './ingest-metrics.js';
import type { ReceiverLimits, ReceiverOptions } from './receiver-options.js';
import { senderLimit } from './sender-limit.js';

export type { ReceiverLimits, ReceiverOptions };

/** A running receiver: where it listens, and how to stop it. */
export interface Receiver {
  port: number;
  /** http://host:port */
  url: string;
  /** Stops accepting, lets requests in flight finish (their pushes are stored and answered), then resolves. */
  close(): Promise<void>;
}

const PATH = /^\/ingest\/([^/?#]+)\/?(?:\?.*)?$/;

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

function pushContext(o: ReceiverOptions): PushContext {
  const limits = limitsOf(o.limits);
  const now = o.now ?? Date.now;
  const backlogs = new Map<string, () => Promise<number>>();
  const backlog = (stream: string) => {
    let count = backlogs.get(stream);
    if (!count) backlogs.set(stream, (count = backlogOf(o.queues.get(stream), limits.backlogCacheMs, now)));
    return count();
  };
  return {
    o,
    limits,
    senders: senderLimit(limits.ratePerSecond),
    backlog,
    metrics: ingestMetrics(o.registry),
    now,
  };
}

/** Routes one request: `POST /ingest/{stream}`, `GET /healthz`; answers its status (0: the sender went away). */
async function route(ctx: PushContext, req: IncomingMessage, res: ServerResponse): Promise<{ stream: string; status: number }> {
  const url = req.url ?? '/';
  if (url === '/healthz' || url.startsWith('/healthz?')) {
    const ok = ctx.o.redis.status === 'ready';
    answer(res, ok ? 200 : 503, ok ? { ok } : { ok, error: `Redis is not connected (${ctx.o.redis.status})` });
    return { stream: '-', status: ok ? 200 : 503 };
  }
  const match = PATH.exec(url);
  if (!match) {
    answer(res, 404, { error: 'not found: push to POST /ingest/{stream}' });
    return { stream: '-', status: 404 };
  }
  let name: string;
  try {
    name = decodeURIComponent(match[1]!);
  } catch {
    name = match[1]!;
  }
  const kind = findKind(ctx.o.kinds, name);
  if (req.method !== 'POST') {
    answer(res, 405, { error: 'use POST' }, { allow: 'POST' });
    return { stream: kind ? name : 'unknown', status: 405 };
  }
  if (!kind) {
    answer(res, 404, { error: `unknown stream "${name}"`, streams: ctx.o.kinds.map((k) => k.stream) });
    return { stream: 'unknown', status: 404 };
  }
  return { stream: name, status: await handlePush(ctx, req, res, kind) };
}

/**
 * Starts the push receiver (docs/push.md): `POST /ingest/{stream}` with a signed JSON body (one record or an array)
 * is answered 2xx only once its records are jobs in Redis; `GET /healthz` says whether Redis is connected.
 */
export async function startReceiver(o: ReceiverOptions): Promise<Receiver> {
  const ctx = pushContext(o);
  let closing = false;
  const server = createServer((req, res) => {
    // While closing, each answer closes its connection: a keep-alive sender reconnects elsewhere.
    if (closing) res.setHeader('connection', 'close');
    res.once('finish', () => {
      if (closing) setImmediate(() => server.closeIdleConnections());
    });
    route(ctx, req, res)
      .then(({ stream, status }) => {
        if (status) ctx.metrics.delivery(stream, status);
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
