import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from './validation.js';

/** Reads the whole request body as text; 413 above maxBytes. */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > maxBytes) {
        reject(new ApiError(413, `The request body is larger than ${maxBytes} bytes`));
        req.removeAllListeners('data');
        req.resume();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Parses a JSON body; an empty body reads as {}. */
export function parseJson(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ApiError(400, `Malformed JSON body: ${(err as Error).message}`);
  }
}

export function sendJson(res: ServerResponse, status: number, json: string, headers?: Record<string, string | number>): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json), ...headers });
  res.end(json);
}

export function sendMsg(res: ServerResponse, status: number, msg: string, headers?: Record<string, string | number>): void {
  sendJson(res, status, JSON.stringify({ msg }), headers);
}
