import type { EntityRef, FoundProgress, FoundSection } from '../../src/ops/find-rule.js';
import type { RedisConnection as Redis, RedisKeys } from '../../src/redis/connection.js';
import { readLifeLog, type SnapshotEntry } from './life-log.js';
import { parseLife, type LifeProgress, type LifeStatus } from './life-progress.js';

/** The order's status in the service's words, and in an operator's. */
const SAID: Record<LifeStatus, [statusId: string, words: string]> = {
  created: ['ORDER_CREATED', 'created, not committed'],
  locked: ['ORDER_LOCKED', 'committed (its units reserved)'],
  completed: ['ORDER_COMPLETED', 'completed'],
  cancelled: ['ORDER_CANCELLED', 'cancelled'],
};

/** What a snapshot did, in one cell: its outcome, `(older)` when skipped as older, the code when it failed. */
export function snapshotOutcome(e: SnapshotEntry): string {
  return `${e.outcome}${e.older ? ' (older)' : ''}${e.code ? ` [${e.code}]` : ''}`;
}

function lineOf(orderId: string, p: LifeProgress, log: SnapshotEntry[]): string {
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

function sectionsOf(orderId: string, p: LifeProgress, log: SnapshotEntry[]): FoundSection[] {
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
 * What `find` shows of an order that lives (docs/orders.md "The order's life"): its status in the service, each
 * fulfillment's shipment, the restocked returns and the write about to be sent, from its progress; its snapshots in
 * order with what each did, from its snapshot log.
 */
export async function lifeFound(redis: Redis, keys: RedisKeys, orderId: string, hash: Record<string, string>): Promise<FoundProgress> {
  const p = parseLife(hash);
  const log = await readLifeLog(redis, keys, orderId);
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
  const entities: EntityRef[] = [];
  if (p.orderUrl) entities.push({ kind: 'order', url: p.orderUrl });
  for (const x of p.parts.values()) if (x.url) entities.push({ kind: 'shipment', url: x.url });
  for (const r of p.returns.values()) for (const url of r.urls) if (url) entities.push({ kind: 'variance', url });
  return { name: 'order', value, line: lineOf(orderId, p, log), entities, sections: sectionsOf(orderId, p, log) };
}
