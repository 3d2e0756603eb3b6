import { defaults } from '../../config/defaults.js';
import { HEAD_CHARS } from '../records/unreadable-record.js';
import type { TransformEntry, TransformFn } from '../records/transform-fn.js';
import { messageOf } from '../errors/message-of.js';

/** A stream's transform as set (TRANSFORMS, or `import --transform`): its function and how operators name it. */
export interface Transform {
  stream: string;
  /** The built-in's name, or the module's path as given. */
  name: string;
  fn: TransformFn;
}

/** The upstream payload as kept beside its records: its JSON text, at most HEAD_CHARS characters. */
export function upstreamText(payload: unknown): string {
  try {
    return (typeof payload === 'string' ? payload : (JSON.stringify(payload) ?? String(payload))).slice(0, HEAD_CHARS);
  } catch (err) {
    return `(could not be written as JSON: ${messageOf(err)})`.slice(0, HEAD_CHARS);
  }
}

/** What a value that is not a record is, for the reason operators read. */
function whatIs(value: unknown): string {
  if (value === undefined) return 'nothing (undefined; return null for a payload with nothing to sync)';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

const isRecord = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The entries to queue for one upstream payload (the receiver calls it per pushed payload, `import` per line or
 * CSV row): the payload itself when the stream has no transform; else what the transform makes of it. Never
 * throws: a transform that throws, or returns something that is not a record, makes a problem naming the
 * transform and the reason (the bad record's error then names the upstream id too).
 */
export async function transformPayload(transform: Transform | undefined, payload: unknown, upstreamId: string): Promise<TransformEntry[]> {
  if (!transform) return [{ record: payload, upstreamId }];
  const upstream = upstreamText(payload);
  const problem = (reason: string): TransformEntry => ({ problem: `transform ${transform.name} ${reason}`, upstreamId, upstream });
  let out: unknown;
  try {
    out = await transform.fn(payload, { stream: transform.stream, upstreamId });
  } catch (err) {
    return [problem(`failed: ${messageOf(err).slice(0, defaults.transformReasonChars)}`)];
  }
  if (out === null) return [];
  if (isRecord(out)) return [{ record: out, upstreamId, upstream }];
  if (!Array.isArray(out)) return [problem(`returned ${whatIs(out)}, not a record`)];
  const bad = out.findIndex((r) => !isRecord(r));
  // One element that is no record fails the payload whole: a partial order or count would be wrong.
  if (bad >= 0) return [problem(`returned ${whatIs(out[bad])} at [${bad}], not a record`)];
  return out.map((record) => ({ record, upstreamId, upstream }));
}
