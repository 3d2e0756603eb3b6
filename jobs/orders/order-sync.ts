import { defaults } from '../../config/defaults.js';
import type { JobContext, JobResult } from '../../src/queue/job-context.js';
import { ProgressHash } from '../../src/redis/progress-hash.js';
import { logSnapshot } from './life-log.js';
import { orderKeys } from './order-keys.js';
import { planOrder, recordHashOf } from './order-plan.js';
import { parseProgress, ProgressStore, stepOf } from './order-progress.js';
import { isPlain, type OrderInput } from './order-record.js';
import { OrderRun } from './order-run.js';

/**
 * A plain record synced before, re-delivered: its progress says completed, for this very record, nothing pending. The
 * job (and the dry run) then asks nothing of the catalog or the service; a resync or repair plans from the service.
 */
export function syncedBefore(
  record: OrderInput,
  hash: Record<string, string>,
  fromService: unknown,
): { orderUrl?: string; shipmentUrl?: string } | undefined {
  if (fromService || !isPlain(record)) return undefined;
  const p = parseProgress(hash);
  if (stepOf(p) !== 'completed' || p.pending || p.recordHash !== recordHashOf(record)) return undefined;
  return { orderUrl: p.orderUrl, shipmentUrl: [...p.parts.values()][0]?.url };
}

/**
 * Syncs one order record (docs/records.md "orders"), whatever its form: a snapshot of the order's life, a plain
 * fulfilled sale (the snapshot `fulfilled` with one shipment of all its lines) or a return notice, through the one
 * machine (order-run.ts). Exactly once per orderId, whatever the re-deliveries. A snapshot that tells a life, or
 * carries an updatedAt, is written to the order's snapshot log. See docs/orders.md.
 */
export async function processOrder(record: OrderInput, ctx: JobContext): Promise<JobResult> {
  const key = orderKeys(ctx.keys).progress(record.orderId);
  const hash = await new ProgressHash(ctx.redis, key).read();
  const synced = syncedBefore(record, hash, ctx.fromService);
  if (synced)
    return {
      outcome: 'unchanged',
      summary: `order ${record.orderId} was already synced (completed)`,
      details: { ...synced, applied: [] },
    };
  const run = async () => {
    const plan = await planOrder(record, ctx.catalog);
    const store = new ProgressStore(ctx.redis, key, defaults.orderProgressTtlSeconds, parseProgress(hash, plan));
    return new OrderRun(plan, ctx, store).run();
  };
  // The plain sale without updatedAt costs what it always did: no log entry.
  return isPlain(record) && !record.updatedAt ? run() : logSnapshot(ctx, record, run);
}
