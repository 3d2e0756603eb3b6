import * as crypto from 'node:crypto';
import { defaults } from '../../config/defaults.js';
import { recordKey } from '../feed/records.js';
import { RecordTooDeepError } from '../feed/unreadable-record.js';
import type { StreamName } from './streams.js';

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
const sha256Hex: (text: string) => string =
  typeof (crypto as { hash?: unknown }).hash === 'function'
    ? (text) => (crypto as unknown as { hash(alg: string, data: string, enc: 'hex'): string }).hash('sha256', text, 'hex')
    : (text) => crypto.createHash('sha256').update(text).digest('hex');

/** First 12 hex digits of the sha256 of the canonical JSON of a record. */
export function recordHash(raw: unknown): string {
  return sha256Hex(canonicalJson(raw)).slice(0, 12);
}

/** Longest business key kept in a job id; the hash still tells longer ones apart. */
const MAX_KEY_IN_ID = 120;

/** A business key made safe for a BullMQ custom id (no ':', no spaces), reversibly for ordinary keys. */
export function idSafe(key: string): string {
  return encodeURIComponent(key).slice(0, MAX_KEY_IN_ID);
}

/**
 * The job id of a record (contract 3): `{stream}-{key}-{hash}`; `{stream}-invalid-{hash}` when the record
 * has no usable key. An identical re-delivery gets the same id (a no-op at the queue); a corrected one a new id.
 */
export function jobIdFor(stream: StreamName, raw: unknown): string {
  const key = recordKey(stream, raw);
  return `${stream}-${key === undefined ? 'invalid' : idSafe(key)}-${recordHash(raw)}`;
}

/**
 * The job id of a record that could not be read (too large, too deep, not UTF-8): `{stream}-{key}-{hash}` with the
 * key found in its head, else `{stream}-invalid-{hash}`; the hash is of its bytes, so a re-delivery is a no-op.
 */
export function unreadableJobId(stream: StreamName, key: string | undefined, bytesHash: string): string {
  return `${stream}-${key === undefined ? 'invalid' : idSafe(key)}-${bytesHash.slice(0, 12)}`;
}
