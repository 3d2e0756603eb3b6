import { sha256Hex } from '../../src/queue/canonical-hash.js';

/**
 * A short stable hash of a count as its zod schema parsed it (first 16 hex of sha256). The parsed record's keys come
 * in schema order and unknown keys are dropped, so its JSON is canonical without sorting. Not the canonical hash of
 * src/queue/canonical-hash.ts: this one is stored in count progress, and a new one would make counts in progress at an
 * upgrade look corrected. The rows' file lines (`items.N.line`) and the bad rows split off (`badRows`) are left out:
 * the same count read from a file whose lines moved, or corrected only in a row that failed alone, is the same count.
 */
export function countVersionHash(parsed: unknown): string {
  return sha256Hex(JSON.stringify(parsed, (k, v: unknown) => (k === 'line' || k === 'badRows' ? undefined : v))).slice(0, 16);
}
