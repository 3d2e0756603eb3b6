import type { RecordReferences } from '../../records/record-references.js';
import { checkRecord, recordReferences } from '../../records/records.js';
import type { StreamName } from '../../records/stream-name.js';
import type { FeedPage, FetchPageOptions } from '../../feed/upstream-client.js';
import { recordJob, recordLabel } from '../../queue/record-jobs.js';
import type { RedisConnection as Redis, RedisKeys } from '../../redis/connection.js';
import { feedProblem } from './check-problems.js';
import type { FeedStreamCheck } from './check-types.js';
import type { OpsKind } from '../ops-kind.js';

export interface CheckFeedOptions {
  upstream: { fetchPage(stream: StreamName, o: FetchPageOptions): Promise<FeedPage> };
  redis: Redis;
  keys: Pick<RedisKeys, 'cursor'>;
  /** The streams to read, as their kinds say (key, schema, references). */
  kinds: readonly OpsKind[];
  pageSize: number;
  signal?: AbortSignal;
}

/** A checked record of a first page and what it names of the account. */
export interface NamedRecord {
  stream: StreamName;
  /** Its business key (how operators find it). */
  key: string;
  references: RecordReferences;
}

export interface FeedPart {
  streams: FeedStreamCheck[];
  records: NamedRecord[];
}

/**
 * The first page of each stream, read from its stored cursor; nothing is written: the cursor stays, no job is made
 * and no feed state is recorded. A record is checked as the producer checks it, so its problems read the same.
 */
export async function checkFeed(o: CheckFeedOptions): Promise<FeedPart> {
  const parts = await Promise.all(o.kinds.map((kind) => checkStream(o, kind)));
  return { streams: parts.map((p) => p.check), records: parts.flatMap((p) => p.records) };
}

async function checkStream(o: CheckFeedOptions, kind: OpsKind): Promise<{ check: FeedStreamCheck; records: NamedRecord[] }> {
  const stream = kind.stream;
  const cursor = await o.redis.get(o.keys.cursor(stream));
  const check: FeedStreamCheck = { stream, cursor, state: 'ok', problem: null, records: 0, hasMore: null, valid: 0, bad: [] };
  let page: FeedPage;
  try {
    page = await o.upstream.fetchPage(stream, { after: cursor ?? undefined, limit: o.pageSize, signal: o.signal });
  } catch (err) {
    if (!(err instanceof Error) || err.name !== 'FeedError') throw err;
    Object.assign(check, feedProblem(err as Parameters<typeof feedProblem>[0]));
    return { check, records: [] };
  }
  check.records = page.items.length;
  check.hasMore = page.hasMore;
  const records: NamedRecord[] = [];
  for (const raw of page.items) {
    const { job, valid, problems } = recordJob(kind, raw, 'feed');
    const label = recordLabel(kind, job.data, job.opts.jobId);
    const checked = valid ? checkRecord(kind, raw) : undefined;
    if (!checked?.ok) {
      check.bad.push({ record: label, problems });
      continue;
    }
    check.valid++;
    records.push({ stream, key: label, references: recordReferences(kind, checked.record) });
  }
  return { check, records };
}
