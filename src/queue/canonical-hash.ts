import * as crypto from 'node:crypto';
import { defaults } from '../../config/defaults.js';
import { RecordTooDeepError } from '../records/unreadable-record.js';

/**
 * The one canonical hash of the program: sha256 of a value's canonical JSON (keys sorted at every level), used for
 * job ids (12 hex digits) and the order progress's record hash (16). Stock counts keep the hash of their parsed
 * JSON in schema order (jobs/stock/count-version-hash.ts): it is stored in count progress, and changing it would make every
 * count in progress at an upgrade look corrected.
 */

/** Object keys as JSON strings, remembered: records of one feed repeat the same few keys millions of times. */
const quotedKeys = new Map<string, string>();
function quoteKey(key: string): string {
  let q = quotedKeys.get(key);
  if (q === undefined) {
    q = JSON.stringify(key);
    if (quotedKeys.size < 10_000) quotedKeys.set(key, q);
  }
  return q;
}

/**
 * JSON with object keys sorted at every level, so equal records hash alike whatever their key order.
 * Same text as JSON.stringify of a key-sorted copy, written directly (this runs for every record queued).
 * Throws RecordTooDeepError past defaults.maxRecordDepth levels of arrays and objects, long before the stack would
 * overflow (a record 4,000 levels deep once stalled a whole stream here).
 */
export function canonicalJson(value: unknown, depth = 0): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      // undefined, functions and symbols at the top; bigint throws, as in JSON.stringify.
      return JSON.stringify(value) ?? 'null';
  }
  if (value === null) return 'null';
  const withJson = value as { toJSON?: () => unknown };
  if (typeof withJson.toJSON === 'function') return canonicalJson(withJson.toJSON(), depth);
  if (++depth > defaults.maxRecordDepth) throw new RecordTooDeepError();
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (i) out += ',';
      out += item === undefined || typeof item === 'function' || typeof item === 'symbol' ? 'null' : canonicalJson(item, depth);
    }
    return `${out}]`;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  // Usually already in order (or small): sort only when needed.
  for (let i = 1; i < keys.length; i++) {
    if (keys[i - 1]! > keys[i]!) {
      keys.sort();
      break;
    }
  }
  let out = '{';
  let first = true;
  for (const key of keys) {
    const v = obj[key];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    out += `${first ? '' : ','}${quoteKey(key)}:${canonicalJson(v, depth)}`;
    first = false;
  }
  return `${out}}`;
}

/** sha256 as hex; the one-shot crypto.hash (Node >= 20.12) where there is one. */
export const sha256Hex: (text: string) => string =
  typeof (crypto as { hash?: unknown }).hash === 'function'
    ? (text) => (crypto as unknown as { hash(alg: string, data: string, enc: 'hex'): string }).hash('sha256', text, 'hex')
    : (text) => crypto.createHash('sha256').update(text).digest('hex');

/** The first `hexDigits` of the sha256 of the canonical JSON of a value. */
export function canonicalHash(value: unknown, hexDigits: number): string {
  return sha256Hex(canonicalJson(value)).slice(0, hexDigits);
}
