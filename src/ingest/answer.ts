import type { ServerResponse } from 'node:http';

/** Answers a push with a JSON body (`{ error, ... }` for a refusal), once; extra headers such as Retry-After. */
export function answer(res: ServerResponse, status: number, body: Record<string, unknown>, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(text);
}
