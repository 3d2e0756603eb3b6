import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

export interface TestServer {
  url: string;
  port: number;
  /** Every request received, in order. */
  seen: SeenRequest[];
  close(): Promise<void>;
}

/** A real node:http server on 127.0.0.1, port 0, that hands each request (body read) to `handler`. */
export async function startServer(handler: Handler): Promise<TestServer> {
  const seen: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, at: Date.now() });
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers JSON with a status and optional headers. */
export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Rows as the service answers a collection: one array per field. */
export function columns(rows: Array<Record<string, unknown>>): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  rows.forEach((row, i) => {
    for (const [k, v] of Object.entries(row)) (out[k] ??= [])[i] = v;
  });
  // Holes from absent cells become null, as JSON would carry them; trailing absences shorten the column.
  for (const k of Object.keys(out)) out[k] = Array.from(out[k]!, (v) => (v === undefined ? null : v));
  return out;
}
