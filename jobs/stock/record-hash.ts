import { createHash } from 'node:crypto';

/**
 * A short stable hash of a record as its zod schema parsed it (first 16 hex of sha256). The parsed record's
 * keys come in schema order and unknown keys are dropped, so its JSON is canonical without sorting.
 */
export function recordHash(parsed: unknown): string {
  return createHash('sha256').update(JSON.stringify(parsed)).digest('hex').slice(0, 16);
}
