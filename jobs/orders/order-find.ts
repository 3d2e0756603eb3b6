import type { EntityRef, FindRule, FoundProgress, FoundSection } from '../../src/ops/find-rule.js';
import { lifeLogKey, readLifeLog, type SnapshotEntry } from './life-log.js';
import { orderKeys } from './order-keys.js';
import { parseProgress, stepOf, type OrderProgress, type ServiceStatus } from './order-progress.js';

const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);

/** The order's status in the service's words, and in an operator's. */
const SAID: Record<ServiceStatus, [statusId: string, words: string]> = {
  created: ['ORDER_CREATED', 'created, not committed'],
  locked: ['ORDER_LOCKED', 'committed (its units reserved)'],
  completed: ['ORDER_COMPLETED', 'completed'],
  cancelled: ['ORDER_CANCELLED', 'cancelled'],
};

/** What a snapshot did, in one cell: its outcome, `(older)` when skipped as older, the code when it failed. */
function snapshotOutcome(e: SnapshotEntry): string {
  return `${e.outcome}${e.older ? ' (older)' : ''}${e.code ? ` [${e.code}]` : ''}`;
}

function lineOf(orderId: string, p: OrderProgress, log: SnapshotEntry[]): string {
  const said = [
    `Order ${orderId} lives: ${p.status ? `${SAID[p.status][1]} in the service (${SAID[p.status][0]})` : 'not in the service'}`,
  ];
  if (p.parts.size) said.push(`shipments ${[...p.parts].map(([id, x]) => `${id} ${x.shipped ? 'shipped' : 'not shipped'}`).join(', ')}`);
  const restocked = [...p.returns].filter(([, r]) => r.urls.length).map(([id]) => id);
  if (restocked.length) said.push(`returns restocked ${restocked.join(', ')}`);
  if (p.seenAt) said.push(`newest snapshot seen ${p.seenAt}`);
  const older = log.filter((e) => e.older).length;
  said.push(`${log.length} snapshot${log.length === 1 ? '' : 's'} logged${older ? `, ${older} skipped as older` : ''}`);
  if (p.pending) said.push(`about to: ${p.pending} (its outcome is read back from the service before anything else)`);
  return said.join('; ');
}

function sectionsOf(orderId: string, p: OrderProgress, log: SnapshotEntry[]): FoundSection[] {
  const out: FoundSection[] = [
    {
      title: `Snapshots of ${orderId}, in order (by updatedAt)`,
      head: ['updated at', 'status', 'outcome', 'job', 'what it did'],
      rows: log.map((e) => [e.updatedAt ?? '(none)', e.status, snapshotOutcome(e), e.jobId, e.said]),
    },
  ];
  if (p.parts.size)
    out.push({
      title: `Shipments of ${orderId} (one per fulfillment)`,
      head: ['fulfillment', 'shipment', 'shipped'],
      rows: [...p.parts].map(([id, x]) => [id, x.url, x.shipped ? 'yes' : 'no']),
    });
  if (p.returns.size)
    out.push({
      title: `Returns of ${orderId}`,
      head: ['return', 'variances', 'day'],
      rows: [...p.returns].map(([id, r]) => [id, r.urls.map((u) => u || '(no URL answered)').join(', ') || 'none yet', r.day ?? '']),
    });
  return out;
}

/**
 * What `find` shows of an order, from its one progress: its status in the service, each fulfillment's shipment, the
 * restocked returns and the write about to be sent; with its snapshot log (an order told as snapshots), each snapshot
 * in order with what it did. A plain sale that was never logged shows its step, as it always did.
 */
function orderFound(orderId: string, p: OrderProgress, log: SnapshotEntry[] | undefined): FoundProgress {
  const entities: EntityRef[] = [];
  if (p.orderUrl) entities.push({ kind: 'order', url: p.orderUrl });
  for (const x of p.parts.values()) if (x.url) entities.push({ kind: 'shipment', url: x.url });
  for (const r of p.returns.values()) for (const url of r.urls) if (url) entities.push({ kind: 'variance', url });
  if (!log) {
    const step = stepOf(p);
    const value = { step, pending: p.pending ?? null, orderUrl: p.orderUrl ?? null, shipmentUrl: [...p.parts.values()][0]?.url ?? null };
    return { name: 'order', value, line: `Order progress: ${step}${p.pending ? ` (about to: ${p.pending})` : ''}`, entities };
  }
  const value = {
    life: true,
    status: p.status ?? 'not created',
    statusId: p.status ? SAID[p.status][0] : null,
    orderUrl: p.orderUrl ?? null,
    pending: p.pending ?? null,
    seenAt: p.seenAt ?? null,
    parts: [...p.parts].map(([fulfillmentId, x]) => ({ fulfillmentId, shipmentUrl: x.url, shipped: x.shipped })),
    returns: [...p.returns].map(([returnId, r]) => ({ returnId, varianceUrls: r.urls, ...(r.day ? { day: r.day } : {}) })),
    snapshots: log,
  };
  return { name: 'order', value, line: lineOf(orderId, p, log), entities, sections: sectionsOf(orderId, p, log) };
}

/** What `find` shows of an order: the order and its shipments, from the jobs' results and the progress in Redis. */
export const orderFind: FindRule = {
  entityKinds: ['order', 'shipment', 'variance'],
  entities(d) {
    const out: EntityRef[] = [];
    const order = str(d.orderUrl);
    if (order) out.push({ kind: 'order', url: order });
    // A plain order names its shipment; one told as snapshots each fulfillment's.
    for (const url of [d.shipmentUrl, ...(Array.isArray(d.shipmentUrls) ? d.shipmentUrls : [])])
      if (str(url)) out.push({ kind: 'shipment', url: url as string });
    return out;
  },
  async progress(redis, keys, key) {
    const hash = await redis.hgetall(orderKeys(keys).progress(key));
    const logged = (await redis.exists(lifeLogKey(keys, key))) > 0;
    if (!logged && !Object.keys(hash).length) return undefined;
    return orderFound(key, parseProgress(hash), logged ? await readLifeLog(redis, keys, key) : undefined);
  },
};
