import type { Mapping } from '../../config/mapping-file.js';
import type { RedisConnection as Redis } from '../redis.js';
import { mappedNamesOf, type MappedNameRow } from './mapped-names.js';
import { showJob, type JobStory } from './job-inspect.js';
import type { StreamQueues } from '../queue/stream-queues.js';
import { parseProgress } from '../../jobs/orders/order-progress.js';
import { redisKeys } from '../redis.js';
import type { StreamName } from '../records/stream-def.js';
import { loadProgress } from '../../jobs/stock/count-progress.js';
import { findJobIds } from '../queue/job-index.js';

/** An entity of the service a record made or changed. */
export interface RecordEntity {
  kind: 'order' | 'shipment' | 'variance' | 'product';
  /** The entity's URL path as the service gave it (`/acme/api/order/WEB-1`). */
  url: string;
  /** Where it is known from: a job id, or `progress` (the record's progress in Redis). */
  source: string;
}

/** One job of the key: its whole story, and which version of the record it is. */
export interface FoundJob extends JobStory {
  /** 1 for the first record of this key in its stream, 2 for the first correction, ... (by time queued, then first processed). */
  version: number;
  /** Whether it is the newest version in its stream. */
  latest: boolean;
}

/** What `find` answers for a business key. */
export interface FindResult {
  key: string;
  prefix: string;
  found: boolean;
  /** Every job of the key across streams, oldest first. */
  jobs: FoundJob[];
  entities: RecordEntity[];
  /** Under MAPPING_FILE: each product and facility the key's records name that is mapped, with the service's name. */
  mapped: MappedNameRow[];
  /** What Redis holds of the key's progress, per stream that has some. */
  progress: {
    order?: { step: string; pending: string | null; orderUrl: string | null; shipmentUrl: string | null };
    count?: { state: string; facilityUrl: string | null; countDate: string | null; variances: string[]; leftToNewer: Array<{ productId: string; countId: string }> };
  };
}

type Details = { orderUrl?: unknown; shipmentUrl?: unknown; variances?: unknown; productUrl?: unknown };

function detailsOf(job: JobStory): Details[] {
  const out: Details[] = [];
  const rv = job.result as { details?: Details } | null;
  if (rv?.details) out.push(rv.details);
  for (const a of job.attempts) if (a.result?.details) out.push(a.result.details as Details);
  return out;
}

function entitiesOf(job: JobStory): Array<Omit<RecordEntity, 'source'>> {
  const out: Array<Omit<RecordEntity, 'source'>> = [];
  const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  for (const d of detailsOf(job)) {
    const order = str(d.orderUrl);
    const shipment = str(d.shipmentUrl);
    const product = job.stream === 'boms' ? str(d.productUrl) : undefined;
    if (order) out.push({ kind: 'order', url: order });
    if (shipment) out.push({ kind: 'shipment', url: shipment });
    if (product) out.push({ kind: 'product', url: product });
    if (Array.isArray(d.variances)) for (const v of d.variances) if (str(v)) out.push({ kind: 'variance', url: v as string });
  }
  return out;
}

async function progressOf(redis: Redis, prefix: string, key: string, streams: readonly StreamName[]): Promise<FindResult['progress']> {
  const keys = redisKeys(prefix);
  const out: FindResult['progress'] = {};
  if (streams.includes('orders')) {
    const hash = await redis.hgetall(keys.order(key));
    if (Object.keys(hash).length) {
      const p = parseProgress(hash);
      out.order = { step: p.step, pending: p.pending ?? null, orderUrl: p.orderUrl ?? null, shipmentUrl: p.shipmentUrl ?? null };
    }
  }
  if (streams.includes('stock-counts')) {
    const p = await loadProgress(redis, keys, key);
    if (p.state) {
      const variances = [...p.applied.entries()].sort(([a], [b]) => a - b).map(([, url]) => url).filter(Boolean);
      out.count = { state: p.state, facilityUrl: p.facilityUrl ?? null, countDate: p.countDate ?? null, variances, leftToNewer: [...p.left.values()].map((l) => ({ productId: l.productId, countId: l.countId })) };
    }
  }
  return out;
}

/**
 * Every job of an orderId, countId or productId across streams (each version of the record, its state, attempts,
 * calls and error), with the service entities it made or changed, from the jobs' results and the progress in Redis.
 */
export async function findRecord(
  redis: Redis,
  queues: StreamQueues,
  key: string,
  streams: readonly StreamName[] = queues.names,
  o: { mapping?: Mapping } = {},
): Promise<FindResult> {
  const ids = await findJobIds(redis, queues.prefix, key, streams);
  const stories = (await Promise.all(ids.map((id) => showJob(queues, id)))).filter(
    // A key longer than a job id keeps shares its id prefix with others: keep only this key's records.
    (s): s is JobStory => s !== undefined && s.key === key,
  );
  // Queued together (one feed page), the one processed first counts as the earlier version.
  const started = (s: JobStory) => s.attempts[0]?.startedAt ?? '\uffff';
  stories.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || started(a).localeCompare(started(b)) || a.id.localeCompare(b.id));
  const perStream = new Map<StreamName, JobStory[]>();
  for (const s of stories) perStream.set(s.stream, [...(perStream.get(s.stream) ?? []), s]);
  const jobs: FoundJob[] = stories.map((s) => {
    const mine = perStream.get(s.stream)!;
    const i = mine.indexOf(s);
    return { ...s, version: i + 1, latest: i === mine.length - 1 };
  });

  const progress = await progressOf(redis, queues.prefix, key, streams);
  const entities = new Map<string, RecordEntity>();
  const add = (e: Omit<RecordEntity, 'source'>, source: string) => {
    if (!entities.has(e.url)) entities.set(e.url, { ...e, source });
  };
  for (const j of [...jobs].reverse()) for (const e of entitiesOf(j)) add(e, j.id);
  if (progress.order?.orderUrl) add({ kind: 'order', url: progress.order.orderUrl }, 'progress');
  if (progress.order?.shipmentUrl) add({ kind: 'shipment', url: progress.order.shipmentUrl }, 'progress');
  for (const v of progress.count?.variances ?? []) add({ kind: 'variance', url: v }, 'progress');
  const order = ['order', 'shipment', 'variance', 'product'];
  const list = [...entities.values()].sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind));
  const mapped = mappedNamesOf(jobs.map((j) => j.record), o.mapping);
  return { key, prefix: queues.prefix, found: jobs.length > 0 || list.length > 0, jobs, entities: list, mapped, progress };
}
