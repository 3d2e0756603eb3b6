import { defaults } from '../../config/defaults.js';
import { ConflictError } from '../../src/queue/job-errors.js';
import type { PlannedCall, PreviewResult } from '../../src/queue/record-plan.js';
import type { PreviewContext } from '../../src/queue/job-context.js';
import { planOrder, recordHashOf, type OrderPlan } from './order-plan.js';
import { parseProgress, ProgressStore, stepIndex, type OrderProgress } from './order-progress.js';
import { OrderSettlement, SHIPMENT_SHIPPED } from './order-settlement.js';
import { isReturnNotice, tellsLife, type OrderInput, type OrderRecord } from './order-record.js';
import { planLife } from './life-plan.js';
import { parseLife } from './life-progress.js';
import { previewLife } from './life-preview.js';
import { orderKeys } from './order-keys.js';

/** Where the path of the shipment the service creates goes, before it exists. */
export const SHIPMENT_URL = '{shipmentUrl}';

/** An order's progress as the preview moves it: in memory only, never saved. */
class UnsavedProgress extends ProgressStore {
  override async save(): Promise<void> {}
}

/** The writes the run makes from `progress` on: create the order, create its shipment, ship, complete. */
function remainingCalls(
  record: OrderRecord,
  plan: OrderPlan,
  progress: OrderProgress,
  orderPath: string,
  ctx: PreviewContext,
): PlannedCall[] {
  const done = stepIndex(progress.step);
  const orderUrl = progress.orderUrl ?? orderPath;
  // Names as the record gives them, with the service's under MAPPING_FILE: "SKU-9 → MUG-BLUE".
  const shown = (kind: 'product' | 'facility', value: string) => {
    const to = ctx.catalog.mapped?.(kind, value);
    return to === undefined || to === value ? value : `${value} → ${to}`;
  };
  const sold = record.lines.map((l) => `${shown('product', l.productId)} ${l.quantity} x ${l.unitPrice}`).join(', ');
  const taken = record.lines.map((l) => `${shown('product', l.productId)} ${l.quantity} from ${shown('facility', l.location)}`).join(', ');
  const calls: PlannedCall[] = [];
  const account = ctx.client.account;
  if (done < 1)
    calls.push({
      method: 'POST',
      path: `/${account}/api/order`,
      body: plan.order,
      what: `create the order from ${shown('facility', record.origin)}: ${sold}`,
    });
  if (done < 2) {
    calls.push({
      method: 'POST',
      path: `/${account}/api/shipment`,
      body: { ...plan.shipment, primaryOrderUrl: orderUrl },
      what: `create its shipment ${plan.shipmentIdUser}: ${taken}`,
    });
  }
  if (done < 3)
    calls.push({
      method: 'POST',
      path: progress.shipmentUrl ?? SHIPMENT_URL,
      body: { statusId: SHIPMENT_SHIPPED },
      what: 'ship the shipment',
    });
  if (done < 4)
    calls.push({ method: 'POST', path: progress.actionUrlComplete ?? `${orderUrl}/complete`, body: {}, what: 'complete the order' });
  return calls;
}

/**
 * The dry run of an order: its progress says whether it is synced; otherwise the record is planned (bad records
 * throw as in the job), an uncertain or corrected progress settled by the same reads the job makes, and the
 * remaining writes listed.
 */
export async function previewOrder(input: OrderInput, ctx: PreviewContext): Promise<PreviewResult> {
  const id = input.orderId;
  const store = new UnsavedProgress(ctx.redis, orderKeys(ctx.keys).progress(id), defaults.orderProgressTtlSeconds);
  const stored = await ctx.redis.hgetall(orderKeys(ctx.keys).progress(id));
  if (isReturnNotice(input) || tellsLife(input) || stored.life === '1' || ctx.memo('order-life', () => new Map()).has(id))
    return previewLife(await planLife(input, ctx.catalog), parseLife(stored), ctx);
  const record = input;
  const progress = parseProgress(stored);
  const hash = recordHashOf(record);
  if (!ctx.fromService && progress.step === 'completed' && !progress.pending && progress.recordHash === hash) {
    return { outcome: 'unchanged', summary: `order ${id}: already synced (completed); no calls`, calls: [] };
  }
  const plan = await planOrder(record, ctx.catalog);
  // Another version of this order earlier in this run: its job runs first and this one is compared with what it made.
  const planned = ctx.memo('orders', () => new Map<string, string>());
  const before = planned.get(id);
  if (before !== undefined && before !== hash) {
    throw new ConflictError(
      `order ${id}: another version of this order comes earlier in this run; ` +
        'this one would be compared with the order that one creates and fail where they differ',
      'Send one version of each order; a correction of a synced order is compared with the service.',
      { orderId: id },
    );
  }
  planned.set(id, hash);
  const settlement = new OrderSettlement(plan, ctx, store, progress);
  if (ctx.fromService) await settlement.fromService();
  else await settlement.settleFirst();
  const now = settlement.progress;
  const calls = remainingCalls(record, plan, now, settlement.orderPath(), ctx);
  // Completed in the service, its shipment not shipped: the run ships it and completes nothing.
  const complete = calls.findIndex((c) => c.what === 'complete the order');
  if (settlement.completedInService && complete >= 0) calls.splice(complete, 1);
  const details = { from: now.step, lines: record.lines.length, ...(now.orderUrl ? { orderUrl: now.orderUrl } : {}) };
  if (!calls.length)
    return { outcome: 'unchanged', summary: `order ${id}: already synced (completed in the service); no calls`, calls, details };
  const resumed = now.step === 'none' ? '' : ` (resumes after "${now.step}")`;
  return { outcome: 'writes', summary: `order ${id}: ${calls.length} call${calls.length === 1 ? '' : 's'}${resumed}`, calls, details };
}
