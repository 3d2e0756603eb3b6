import type { PlannedCall, PreviewResult } from '../../src/queue/record-plan.js';
import type { PreviewContext } from '../../src/queue/job-context.js';
import { nextLifeStep, type LifeWriteStep } from './life-next.js';
import type { LifePlan } from './life-plan.js';
import { applyWrite, isOlder, type LifeProgress, type LifeWrite } from './life-progress.js';
import { adoptService, readServiceOrder } from './life-read.js';

/** Where a path the service assigns goes, before it exists. */
const SHIPMENT_URL = '{shipmentUrl}';

/** The call a step sends, and what the run would know after it. */
function simulate(plan: LifePlan, p: LifeProgress, step: LifeWriteStep, orderUrl: string, account: string): [PlannedCall, LifeWrite] {
  const action = (name: 'lock' | 'edit' | 'cancel' | 'complete') => p.actions[name] ?? `${orderUrl}/${name}`;
  const post = (path: string, body: unknown, what: string): PlannedCall => ({ method: 'POST', path, body, what });
  switch (step.kind) {
    case 'create-order':
      return [post(`/${account}/api/order`, plan.order, 'create the order'), { status: 'created', orderUrl, items: plan.itemsHash! }];
    case 'lock':
      return [post(action('lock'), {}, 'commit the order (its units reserved)'), { status: 'locked' }];
    case 'edit':
      return [post(action('edit'), {}, 'make the committed order editable'), { status: 'created' }];
    case 'items':
      return [post(orderUrl, { orderItemList: plan.order!.orderItemList }, "change the order's lines"), { items: plan.itemsHash! }];
    case 'complete':
      return [post(action('complete'), {}, 'complete the order'), { status: 'completed' }];
    case 'cancel': {
      const gone = new Map([...p.parts].filter(([, x]) => !x.shipped).map(([k]) => [k, null] as [string, null]));
      return [post(action('cancel'), {}, 'cancel the order (and its unshipped shipments)'), { status: 'cancelled', parts: gone }];
    }
    case 'shipment':
      return [
        post(`/${account}/api/shipment`, { ...step.part.shipment, primaryOrderUrl: orderUrl }, `create shipment ${step.part.id}`),
        { parts: new Map([[step.part.id, { shipped: false, url: SHIPMENT_URL, units: step.part.units }]]) },
      ];
    case 'ship': {
      const known = p.parts.get(step.part.id)!;
      return [
        post(known.url, { statusId: 'SHIPMENT_SHIPPED' }, `ship ${step.part.id}`),
        { parts: new Map([[step.part.id, { ...known, shipped: true }]]) },
      ];
    }
    case 'return': {
      const v = step.ret.variances[step.index]!;
      const day = step.ret.day ?? '{today}';
      const body = {
        physicalInventoryDate: `${day}T19:00:00.000`,
        statusId: 'PHSCL_INV_COMMITTED',
        physicalInventoryTypeId: 'FACILITY',
        facilityUrl: v.facilityUrl,
        inventoryItemVarianceList: v.lines.map(([productUrl, q]) => ({ facilityUrl: v.facilityUrl, productUrl, quantityOnHandVar: q })),
      };
      const urls = [...(p.returns.get(step.ret.id)?.urls ?? []), '{varianceUrl}'];
      return [
        post(`/${account}/api/inventoryvariance`, body, `restock return ${step.ret.id}`),
        { returns: new Map([[step.ret.id, { urls, day }]]) },
      ];
    }
  }
}

/**
 * The dry run of a snapshot: the same next steps the job takes (life-next.ts), from the progress kept, or from what
 * the service has where the job would read it first; snapshots of one order earlier in the run are taken as applied.
 */
export async function previewLife(plan: LifePlan, stored: LifeProgress, ctx: PreviewContext): Promise<PreviewResult> {
  const earlier = ctx.memo('order-life', () => new Map<string, LifeProgress>());
  let p = earlier.get(plan.orderId) ?? stored;
  const id = plan.orderId;
  if (!plan.notice && plan.updatedAt && p.seenAt && isOlder(plan.updatedAt, p.seenAt))
    return { outcome: 'skipped', summary: `order ${id}: older than the snapshot of ${p.seenAt}; no calls`, calls: [] };
  const orderUrl = () => p.orderUrl ?? ctx.client.entityPath('order', id);
  let fresh = false;
  const read = async () => {
    p = applyWrite(p, adoptService(plan, p, await readServiceOrder(ctx, plan, orderUrl())));
    fresh = true;
  };
  if (p.pending || (p.exists && !p.life) || ctx.fromService || (!p.exists && plan.status === 'cancelled')) await read();
  const calls: PlannedCall[] = [];
  let why: string | undefined;
  for (;;) {
    const next = nextLifeStep(plan, p);
    if (next.kind === 'refuse') throw next.error;
    if (next.kind === 'done') {
      why = next.why;
      break;
    }
    if (next.step.kind === 'cancel' && !fresh && p.orderUrl) {
      await read();
      continue;
    }
    const [call, effect] = simulate(plan, p, next.step, orderUrl(), ctx.client.account);
    calls.push(call);
    p = applyWrite(p, effect);
  }
  earlier.set(id, applyWrite(p, !plan.notice && plan.updatedAt ? { seenAt: plan.updatedAt } : {}));
  const details = { status: p.status ?? 'not created', ...(plan.updatedAt ? { updatedAt: plan.updatedAt } : {}) };
  if (!calls.length)
    return {
      outcome: why ? 'skipped' : 'unchanged',
      summary: `order ${id}: ${why ?? 'the service already matches the snapshot'}; no calls`,
      calls,
      details,
    };
  return {
    outcome: 'writes',
    summary: `order ${id}: ${calls.length} call${calls.length === 1 ? '' : 's'} (${calls.map((c) => c.what).join(', ')})`,
    calls,
    details,
  };
}
