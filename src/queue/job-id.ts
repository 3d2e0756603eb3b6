import { createHash } from 'node:crypto';
import { recordKey } from '../feed/records.js';
import type { StreamName } from './streams.js';

/**
 * JSON with object keys sorted at every level, so equal records hash alike whatever their key order.
 * Same text as JSON.stringify of a key-sorted copy, written directly (this runs for every record queued).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  const withJson = value as { toJSON?: () => unknown };
  if (typeof withJson.toJSON === 'function') return canonicalJson(withJson.toJSON());
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      out += (i ? ',' : '') + (item === undefined || typeof item === 'function' || typeof item === 'symbol' ? 'null' : canonicalJson(item));
    }
    return `${out}]`;
  }
  const obj = value as Record<string, unknown>;
  let out = '{';
  for (const key of Object.keys(obj).sort()) {
    const v = obj[key];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    out += `${out.length > 1 ? ',' : ''}${JSON.stringify(key)}:${canonicalJson(v)}`;
  }
  return `${out}}`;
}

/** First 12 hex digits of the sha256 of the canonical JSON of a record. */
export function recordHash(raw: unknown): string {
  return createHash('sha256').update(canonicalJson(raw)).digest('hex').slice(0, 12);
}

/** Longest business key kept in a job id; the hash still tells longer ones apart. */
const MAX_KEY_IN_ID = 120;

/** A business key made safe for a BullMQ custom id (no ':', no spaces), reversibly for ordinary keys. */
function idSafe(key: string): string {
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
