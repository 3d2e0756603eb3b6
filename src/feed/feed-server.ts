import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StreamName } from '../records/stream-name.js';

export interface FeedFaults {
  /** Fraction (0..1) of page requests answered 503. */
  status503Rate?: number;
  /** Answer the next N page requests 503, whatever the rate. */
  status503Times?: number;
  /** Delay before each answer, in ms. */
  latencyMs?: number;
}

export interface FeedCounters {
  /** Page requests, by stream. */
  requests: Record<StreamName, number>;
  /** Answers by HTTP status. */
  byStatus: Record<string, number>;
  /** Records served, by stream (re-served pages count again). */
  served: Record<StreamName, number>;
}

export interface StartFeedServerOptions {
  /** The streams it serves (the list of kinds' names); any other path is a 404. */
  names: readonly StreamName[];
  /**
   * Records of each stream; a Buffer is served as is, raw bytes in the page (a record no JS value can make: invalid
   * UTF-8, 10,000 levels deep).
   */
  streams?: Partial<Record<StreamName, unknown[]>>;
  /** When set, requests must carry `authorization: Bearer {token}`. */
  token?: string;
  host?: string;
  port?: number;
  /** Most records in one page, whatever `limit` asks; also the page size when no limit is given. Default 500. */
  pageSize?: number;
  faults?: FeedFaults;
}

export interface FeedServer {
  /** Base URL, e.g. http://127.0.0.1:PORT; pages are at {url}/{stream}. */
  url: string;
  port: number;
  /** Adds records at the end of a stream (appending a record again is a re-delivery). */
  append(stream: StreamName, records: unknown[]): void;
  /** Records of a stream so far. */
  size(stream: StreamName): number;
  setFaults(faults: FeedFaults): void;
  counters(): FeedCounters;
  close(): Promise<void>;
}

const CURSOR_PREFIX = 'c1.';

/** Cursors are opaque to clients: an encoded position, not a visible number. */
function encodeCursor(position: number): string {
  return CURSOR_PREFIX + Buffer.from(`pos:${position}`).toString('base64url');
}

function decodeCursor(cursor: string): number | undefined {
  if (!cursor.startsWith(CURSOR_PREFIX)) return undefined;
  const m = /^pos:(\d+)$/.exec(Buffer.from(cursor.slice(CURSOR_PREFIX.length), 'base64url').toString());
  return m ? Number(m[1]) : undefined;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = body instanceof Buffer ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** A page's JSON; built from parts when some records are raw bytes. */
function pageBody(items: unknown[], cursor: string, hasMore: boolean): unknown {
  if (!items.some((i) => i instanceof Buffer)) return { items, cursor, hasMore };
  const parts = items.map((i) => (i instanceof Buffer ? i : Buffer.from(JSON.stringify(i))));
  const joined = parts.flatMap((p, k) => (k ? [Buffer.from(','), p] : [p]));
  return Buffer.concat([Buffer.from('{"items":['), ...joined, Buffer.from(`],"cursor":${JSON.stringify(cursor)},"hasMore":${hasMore}}`)]);
}

/** An upstream feed (docs/records.md) over plain node:http, for tests, the demo and the chaos run. */
export async function startFeedServer(opts: StartFeedServerOptions): Promise<FeedServer> {
  const data = new Map<StreamName, unknown[]>(opts.names.map((s) => [s, [...(opts.streams?.[s] ?? [])]]));
  const pageSize = opts.pageSize ?? 500;
  let faults: FeedFaults = { ...opts.faults };
  const counters: FeedCounters = {
    requests: Object.fromEntries(opts.names.map((s) => [s, 0])),
    byStatus: {},
    served: Object.fromEntries(opts.names.map((s) => [s, 0])),
  };

  const answer = (res: ServerResponse, status: number, body: unknown) => {
    counters.byStatus[status] = (counters.byStatus[status] ?? 0) + 1;
    const go = () => send(res, status, body);
    if (faults.latencyMs) setTimeout(go, faults.latencyMs);
    else go();
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://feed');
    const name = decodeURIComponent(url.pathname.replace(/^\/+|\/+$/g, ''));
    if (req.method !== 'GET') return answer(res, 405, { error: 'only GET' });
    if (!data.has(name)) return answer(res, 404, { error: `no stream ${name}; streams: ${opts.names.join(', ')}` });
    counters.requests[name] = (counters.requests[name] ?? 0) + 1;
    if (opts.token && req.headers.authorization !== `Bearer ${opts.token}`)
      return answer(res, 401, { error: 'bad or missing bearer token' });
    if (faults.status503Times && faults.status503Times > 0) {
      faults.status503Times--;
      return answer(res, 503, { error: 'injected fault' });
    }
    if (faults.status503Rate && Math.random() < faults.status503Rate) return answer(res, 503, { error: 'injected fault' });
    const after = url.searchParams.get('after');
    const start = after === null ? 0 : decodeCursor(after);
    if (start === undefined) return answer(res, 400, { error: 'unknown cursor' });
    const limitParam = url.searchParams.get('limit');
    const limit = limitParam === null ? pageSize : Number(limitParam);
    if (!Number.isInteger(limit) || limit < 1) return answer(res, 400, { error: 'limit must be a whole number of 1 or more' });
    const records = data.get(name)!;
    const items = records.slice(start, start + Math.min(limit, pageSize));
    const next = Math.min(start + items.length, records.length);
    counters.served[name] = (counters.served[name] ?? 0) + items.length;
    answer(res, 200, pageBody(items, encodeCursor(next), next < records.length));
  };

  const server = createServer(handle);
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = opts.host && opts.host !== '0.0.0.0' && opts.host !== '::' ? opts.host : '127.0.0.1';
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    append(stream, records) {
      const list = data.get(stream)!;
      for (const r of records) list.push(r);
    },
    size: (stream) => data.get(stream)!.length,
    setFaults(next) {
      faults = { ...next };
    },
    counters: () => structuredClone(counters),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
