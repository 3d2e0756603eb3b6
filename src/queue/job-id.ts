import { canonicalHash } from './canonical-hash.js';
import { recordKey } from '../records/records.js';
import type { KeyedKind } from '../records/record-kind.js';
import type { StreamName } from '../records/stream-name.js';

/** The hash in a record's job id: first 12 hex digits of the sha256 of its canonical JSON (key order ignored). */
export function jobIdHash(raw: unknown): string {
  return canonicalHash(raw, 12);
}

/** Longest business key kept in a job id; the hash still tells longer ones apart. */
export const MAX_KEY_IN_ID = 120;

/** A business key made safe for a BullMQ custom id (no ':', no spaces), reversibly for ordinary keys. */
export function idSafe(key: string): string {
  return encodeURIComponent(key).slice(0, MAX_KEY_IN_ID);
}

/**
 * The job id of a record (contract 3): `{stream}-{key}-{hash}`; `{stream}-invalid-{hash}` when the record
 * has no usable key. An identical re-delivery gets the same id (a no-op at the queue); a corrected one a new id.
 */
export function jobIdFor(kind: KeyedKind, raw: unknown): string {
  const key = recordKey(kind, raw);
  return `${kind.stream}-${key === undefined ? 'invalid' : idSafe(key)}-${jobIdHash(raw)}`;
}

/**
 * The job id of a record that could not be read (too large, too deep, not UTF-8): `{stream}-{key}-{hash}` with the
 * key found in its head, else `{stream}-invalid-{hash}`; the hash is of its bytes, so a re-delivery is a no-op.
 */
export function unreadableJobId(stream: StreamName, key: string | undefined, bytesHash: string): string {
  return `${stream}-${key === undefined ? 'invalid' : idSafe(key)}-${bytesHash.slice(0, 12)}`;
}
