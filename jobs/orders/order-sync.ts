import { defaults } from '../../config/defaults.js';
import { isReturnNotice, tellsLife, type OrderInput, type OrderRecord } from './order-record.js';
import type { JobContext, JobResult } from '../../src/queue/job-context.js';
import { planOrder, recordHashOf } from './order-plan.js';
import { parseProgress, ProgressStore, type OrderProgress } from './order-progress.js';
import { ProgressHash } from '../../src/redis/progress-hash.js';
import { OrderRun } from './order-run.js';
import { orderKeys } from './order-keys.js';
import { planLife } from './life-plan.js';
import { LifeStore, parseLife } from './life-progress.js';
import { LifeRun } from './life-run.js';
import { logSnapshot } from './life-log.js';

/**
 * Syncs one order record (docs/records.md "orders"). A plain fulfilled sale — the order with one shipment of its
 * lines, shipped, and the order completed — runs the four steps of OrderRun; a snapshot that tells more of the
 * order's life (open, cancelled, parts, returns, or an order already living so) runs LifeRun. Exactly once per
 * orderId, whatever the re-deliveries. See docs/orders.md.
 */
export async function processOrder(record: OrderInput, ctx: JobContext): Promise<JobResult> {
  const key = orderKeys(ctx.keys).progress(record.orderId);
  const ttl = defaults.orderProgressTtlSeconds;
  // One read of the progress hash serves either form.
  const hash = await new ProgressHash(ctx.redis, key).read();
  if (isReturnNotice(record) || tellsLife(record) || hash.life === '1') {
    const store = new LifeStore(ctx.redis, key, ttl);
    return logSnapshot(ctx, record, async () => new LifeRun(await planLife(record, ctx.catalog), ctx, store, parseLife(hash)).run());
  }
  return processPlain(record, ctx, new ProgressStore(ctx.redis, key, ttl), parseProgress(hash));
}

async function processPlain(record: OrderRecord, ctx: JobContext, store: ProgressStore, progress: OrderProgress): Promise<JobResult> {
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
