import { defaults } from '../../config/defaults.js';
import type { OrderRecord } from './order-record.js';
import type { JobContext, JobResult } from '../../src/queue/job-kind.js';
import { planOrder, recordHashOf } from './order-plan.js';
import { ProgressStore } from './order-progress.js';
import { OrderRun } from './order-run.js';
import { orderKeys } from './order-keys.js';

/**
 * Syncs one fulfilled sale (docs/records.md "orders"): the order exists in the service with one shipment of
 * its lines, shipped, and the order completed — exactly once per orderId, whatever the re-deliveries.
 * See docs/orders.md for the steps, the progress kept in Redis and how uncertain outcomes are settled.
 */
export async function processOrder(record: OrderRecord, ctx: JobContext): Promise<JobResult> {
  const store = new ProgressStore(ctx.redis, orderKeys(ctx.keys).progress(record.orderId), defaults.orderProgressTtlSeconds);
  const progress = await store.load();
  // A re-delivery of a record already synced: nothing to ask of the catalog or the service.
  // A resync or repair (ctx.fromService) plans from the service instead: OrderRun reads it first.
  if (!ctx.fromService && progress.step === 'completed' && !progress.pending && progress.recordHash === recordHashOf(record)) {
    return {
      outcome: 'unchanged',
      summary: `order ${record.orderId} was already synced (completed)`,
      details: { orderUrl: progress.orderUrl, shipmentUrl: progress.shipmentUrl, applied: [] },
    };
  }
  const plan = await planOrder(record, ctx.catalog);
  return new OrderRun(plan, ctx, store, progress).run();
}
