/**
 * Poison in the chaos feed: records no JS value can make, served as raw bytes (a record 4,000 levels deep, one over
 * MAX_RECORD_BYTES, one that is not UTF-8), each of which once could stall a stream. The rule: each failed at once as
 * BAD_RECORD with its reason, alone (the records delivered next to it completed).
 */
import { createHash } from 'node:crypto';
import { jobIdFor, unreadableJobId } from '../../src/queue/job-id.js';
import type { ProgramStream } from '../../jobs/kinds.js';
import type { BadRecord } from './scenario-records.js';
import { programKinds } from '../../jobs/kinds.js';
import { kindOf } from '../../src/records/records.js';

/** MAX_RECORD_BYTES of the chaos run (and of its checks' test): small, so the oversized record stays cheap to serve. */
export const POISON_MAX_RECORD_BYTES = 256 * 1024;

const deep = (key: string, id: string, field: string) =>
  Buffer.from(`{"${key}":"${id}","${field}":${'['.repeat(4000)}1${']'.repeat(4000)}}`);
const notUtf8 = (key: string, id: string) =>
  Buffer.concat([Buffer.from(`{"${key}":"${id}","note":"`), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}')]);
const oversized = (id: string) =>
  Buffer.from(JSON.stringify({ orderId: id, origin: 'Main Warehouse', lines: [], pad: 'p'.repeat(POISON_MAX_RECORD_BYTES + 1024) }));

function poison(stream: ProgramStream, key: string, record: Buffer, reason: string): BadRecord {
  const jobId = unreadableJobId(stream, key, createHash('sha256').update(record).digest('hex'));
  return { stream, via: 'feed', key, field: '(record)', record, jobId, poison: reason };
}

/** The poison records of a run: three orders, a count and a BOM. */
export function poisonRecords(seed: number): BadRecord[] {
  const id = (tag: string) => `POISON-${seed}-${tag}`;
  return [
    poison('orders', id('DEEP'), deep('orderId', id('DEEP'), 'lines'), 'nested deeper than 32 levels'),
    poison('orders', id('BIG'), oversized(id('BIG')), 'larger than the cap'),
    poison('orders', id('UTF8'), notUtf8('orderId', id('UTF8')), 'is not valid UTF-8'),
    poison('stock-counts', id('DEEP'), deep('countId', id('DEEP'), 'items'), 'nested deeper than 32 levels'),
    poison('boms', id('UTF8'), notUtf8('productId', id('UTF8')), 'is not valid UTF-8'),
  ];
}

/** A record served as raw bytes (a Buffer, or a Uint8Array once the scenario is cloned). */
export const isRaw = (record: unknown): record is Uint8Array => record instanceof Uint8Array;

/** The job id a record of the feed must have become. */
export function feedJobId(stream: ProgramStream, record: unknown, bad: BadRecord[]): string {
  if (!isRaw(record)) return jobIdFor(kindOf(programKinds, stream), record);
  const b = bad.find((x) => x.stream === stream && isRaw(x.record) && Buffer.compare(Buffer.from(x.record), Buffer.from(record)) === 0);
  return b?.jobId ?? `${stream}-raw-unknown`;
}
