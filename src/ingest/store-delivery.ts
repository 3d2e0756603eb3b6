import { createHash } from 'node:crypto';
import type { Queue } from 'bullmq';
import type { RedisConnection as Redis } from '../redis/connection.js';
import type { JobData } from '../queue/queues.js';
import { addJobs } from '../queue/record-jobs.js';
import { transformedJob } from '../queue/transformed-jobs.js';
import { transformPayload, type Transform } from '../feed/transform.js';
import type { TransformEntry } from '../records/transform-fn.js';
import type { CheckedKind } from '../records/record-kind.js';
import { HEAD_CHARS, tooLarge, UnreadableRecord } from '../records/unreadable-record.js';

export interface StoreDeliveryOptions {
  kind: CheckedKind;
  /** The stream's record queue. */
  queue: Queue<JobData>;
  redis: Redis;
  /**
   * The delivery's mark (redisKeys().ingestSeen): the bodies stored under its id, added once their records are stored,
   * so the same id with the same body again queues nothing.
   */
  seenKey: string;
  /** A hash of the body's bytes: the same id with another body is a delivery of its own. */
  bodyHash: string;
  /** How long the mark lasts, in seconds. */
  seenSeconds: number;
  /** The body as parsed: one record, or an array of them (each an upstream payload when a transform is set). */
  body: unknown;
  /** The delivery's id (webhook-id): the upstream id of its records, `{id}#{n}` for the nth item of an array body. */
  deliveryId: string;
  /** The stream's transform (TRANSFORMS), if any: what the sender pushes becomes records of our shapes through it. */
  transform?: Transform;
  /** The body's size in bytes: only a body larger than maxRecordBytes can hold a record larger than it. */
  bodyBytes: number;
  maxRecordBytes: number;
}

/** What storing a delivery did: nothing (its id was seen within the mark's life), or its records' jobs. */
export type StoredDelivery =
  | { duplicate: true }
  | {
      duplicate: false;
      /** Records in the body, new jobs, records whose job existed, records that fail at once as bad records. */
      records: number;
      queued: number;
      duplicates: number;
      invalid: number;
      /** False when the mark could not be written after the store (the records are stored; a retry queues nothing new). */
      marked: boolean;
      /** The id was stored before with another body: this body was stored as a delivery of its own. */
      reusedId: boolean;
    };

/**
 * Whether this id and body were stored already (a retry), the id with another body only (a sender re-using ids), or
 * neither. A mark of one body per id (a string, as marks were before bodies were told apart) counts as this body.
 */
async function seenBefore(o: StoreDeliveryOptions): Promise<'same' | 'other' | 'new'> {
  const replies = (await o.redis.pipeline().type(o.seenKey).sismember(o.seenKey, o.bodyHash).exec()) ?? [];
  const [typeErr, type] = replies[0] ?? [];
  if (typeErr) throw typeErr;
  if (type === 'none') return 'new';
  if (type !== 'set') return 'same';
  const [memberErr, member] = replies[1] ?? [];
  if (memberErr) throw memberErr;
  return member === 1 ? 'same' : 'other';
}

/**
 * The entries of a body: each element through the stream's transform (none: the element itself), a record larger
 * than MAX_RECORD_BYTES standing in as an unreadable one.
 */
async function entriesOf(o: StoreDeliveryOptions): Promise<TransformEntry[]> {
  const many = Array.isArray(o.body);
  const elements = many ? (o.body as unknown[]) : [o.body];
  const entries = await Promise.all(
    elements.map((element, n) => transformPayload(o.transform, element, many ? `${o.deliveryId}#${n + 1}` : o.deliveryId)),
  );
  return entries.flat().map((e) => ('record' in e ? { ...e, record: capped(e.record, o.bodyBytes, o.maxRecordBytes) } : e));
}

/** A record larger than MAX_RECORD_BYTES stands in as an unreadable one: it fails alone, as it would from the feed. */
function capped(raw: unknown, bodyBytes: number, maxRecordBytes: number): unknown {
  if (bodyBytes <= maxRecordBytes) return raw;
  const text = JSON.stringify(raw) ?? '';
  const bytes = Buffer.byteLength(text);
  if (bytes <= maxRecordBytes) return raw;
  const hash = createHash('sha256').update(text).digest('hex');
  return new UnreadableRecord(tooLarge(bytes, maxRecordBytes), text.slice(0, HEAD_CHARS), hash, bytes);
}

/**
 * Stores a delivery's records as jobs of the stream's queue (the producers' path: one addBulk, a job id keyed on
 * the record), then marks its id with its body. The same id with another body is stored too: a snapshot is safe to
 * apply twice, and dropping it would lose what the sender meant. In that order: a crash between the two leaves
 * records without a mark (a retry queues them again, a no-op for ids that exist), never a mark without its records.
 * A record that does not match its shape is queued too, and fails at once as a bad record naming the record, the
 * field and the reason.
 */
export async function storeDelivery(o: StoreDeliveryOptions): Promise<StoredDelivery> {
  const seen = await seenBefore(o);
  if (seen === 'same') return { duplicate: true };
  const made = (await entriesOf(o)).map((entry) => transformedJob(o.kind, entry, 'push'));
  const added = made.length
    ? await addJobs(
        o.queue,
        o.redis,
        made.map((m) => m.job),
        o.kind,
      )
    : { queued: 0, duplicates: 0 };
  const marked = await o.redis
    .multi()
    .sadd(o.seenKey, o.bodyHash)
    .expire(o.seenKey, o.seenSeconds)
    .exec()
    .then(
      (replies) => !replies?.some(([err]) => err),
      () => false,
    );
  const invalid = made.filter((m) => !m.valid).length;
  return { duplicate: false, records: made.length, ...added, invalid, marked, reusedId: seen === 'other' };
}
