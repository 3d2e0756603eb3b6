/** An answer body longer than the cap (INVENTORY_MAX_RESPONSE_BYTES): reading stopped there. */
export class BodyTooLargeError extends Error {
  readonly code = 'BODY_TOO_LARGE';
  constructor(readonly maxBytes: number) {
    super(`the answer is larger than ${maxBytes} bytes (INVENTORY_MAX_RESPONSE_BYTES)`);
    this.name = 'BodyTooLargeError';
  }
}

/** A body as UTF-8 text, read up to maxBytes: past it the body is let go and BodyTooLargeError thrown. */
export async function readCappedText(body: AsyncIterable<Uint8Array>, maxBytes: number): Promise<string> {
  const parts: Uint8Array[] = [];
  let bytes = 0;
  // Leaving the loop by the throw destroys the body (its iterator's return), so the rest is never read.
  for await (const chunk of body) {
    bytes += chunk.length;
    if (bytes > maxBytes) throw new BodyTooLargeError(maxBytes);
    parts.push(chunk);
  }
  return Buffer.concat(parts, bytes).toString('utf8');
}
