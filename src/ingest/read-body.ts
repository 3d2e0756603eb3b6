import type { IncomingMessage } from 'node:http';

/** A request body read whole, or why not: past the cap (reading stopped there), or the sender went away. */
export type BodyRead = { ok: true; body: Buffer } | { ok: false; why: 'too-large' | 'aborted' };

/**
 * Reads a request's body into memory, at most `maxBytes`: a declared length above it is refused before a byte is
 * read, and reading stops at the first chunk past it (the caller answers 413 and closes the connection).
 */
export function readCappedBody(req: IncomingMessage, maxBytes: number): Promise<BodyRead> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.resolve({ ok: false, why: 'too-large' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (read: BodyRead) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onFail);
      req.off('close', onClose);
      if (!read.ok) req.pause();
      resolve(read);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) return finish({ ok: false, why: 'too-large' });
      chunks.push(chunk);
    };
    const onEnd = () => finish({ ok: true, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size) });
    const onFail = () => finish({ ok: false, why: 'aborted' });
    const onClose = () => {
      if (!req.complete) onFail();
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onFail);
    req.on('close', onClose);
  });
}
