import type { z, ZodType } from 'zod';
import type { GoLiveRule } from '../src/queue/go-live.js';
import { bomStream } from './boms/bom-stream.js';
import type { RecordReferences } from '../src/records/record-references.js';
import { orderStream } from './orders/order-stream.js';
import { stockCountStream } from './stock/stock-count-stream.js';

/** What the feed and the queues need to know of one kind of job's stream (jobs/<kind>/<kind>-stream.ts). */
export interface StreamDef {
  /** The feed's stream and the BullMQ queue of the same name. */
  stream: string;
  /** The record field that names a record: its business key. */
  keyField: string;
  /** The id of the control queue's job scheduler that pulls the stream. */
  scheduler: string;
  /** The record's shape as the feed delivers it, checked as it arrives and when its job starts. */
  schema: ZodType;
  /** The products and facilities a checked record names (for `check`); takes the record as `schema` parses it. */
  references: (record: never) => RecordReferences;
  /** The record's date field that SYNC_*_SINCE compares with: records dated before the floor end skipped. None: no floor. */
  goLive?: GoLiveRule;
}

/**
 * The feed's streams, one per kind of job: the one list the stream names, record schemas and keys, schedulers
 * and job id prefixes derive from. A new kind adds its folder, a line here and a line in jobs/registry.ts.
 */
export const streamDefs = [orderStream, stockCountStream, bomStream] as const;

type Def = (typeof streamDefs)[number];
export type StreamName = Def['stream'];
/** The record of a stream, as its schema parses it. */
export type RecordOf<S extends StreamName> = z.infer<Extract<Def, { stream: S }>['schema']>;

/** A value per stream, from its definition. */
export function perStream<V>(pick: (def: Def) => V): Record<StreamName, V> {
  return Object.fromEntries(streamDefs.map((d) => [d.stream, pick(d)])) as Record<StreamName, V>;
}

/** The stream names, in the list's order; each has one BullMQ queue of the same name. */
export const STREAMS = streamDefs.map((d) => d.stream) as unknown as readonly [StreamName, ...StreamName[]];

export function isStream(name: string): name is StreamName {
  return (STREAMS as readonly string[]).includes(name);
}
