import type { PermanentJobError } from '../../src/queue/job-errors.js';
import { lifeRefusal } from './order-errors.js';
import type { OrderPlan, PlannedPart, PlannedReturn } from './order-plan.js';
import type { OrderProgress } from './order-progress.js';

/** The next write a record needs, named as its `pending` marker. */
export type WriteStep =
  | { kind: 'create-order' | 'lock' | 'edit' | 'items' | 'complete' | 'cancel' }
  | { kind: 'shipment' | 'ship'; part: PlannedPart }
  | { kind: 'return'; ret: PlannedReturn; index: number };

/**
 * What the record needs next: a write; a read of the order and its shipments first (what the progress knows cannot
 * decide it); nothing (done, with why when nothing was to be done); or a person.
 */
export type LifeNext =
  | { kind: 'write'; step: WriteStep; pending: string }
  | { kind: 'read'; why: string }
  | { kind: 'done'; why?: string }
  | { kind: 'refuse'; error: PermanentJobError };

export type NextWrite = Extract<LifeNext, { kind: 'write' }>;

const write = (step: WriteStep): NextWrite => ({
  kind: 'write',
  step,
  pending: 'part' in step ? `${step.kind}:${step.part.id}` : 'ret' in step ? `return:${step.ret.id}:${step.index}` : step.kind,
});
const refuse = (...args: Parameters<typeof lifeRefusal>): LifeNext => ({ kind: 'refuse', error: lifeRefusal(...args) });

/** Units shipped per productUrl over the order's shipped parts. */
function shippedPerProduct(p: OrderProgress): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of p.parts.values()) {
    if (!part.shipped) continue;
    for (const [k, q] of Object.entries(part.units ?? {})) {
      const product = k.slice(0, k.lastIndexOf('@'));
      out[product] = (out[product] ?? 0) + q;
    }
  }
  return out;
}

/** Why the service is read before anything else, when the progress cannot say. */
function readFirst(plan: OrderPlan, p: OrderProgress): string | undefined {
  if (p.fresh) return undefined;
  if (plan.status === 'cancelled' && !p.exists) return 'the record cancels an order this program has not seen';
  // A plain record is the whole order: another one than the progress was made for is compared with the service first.
  if (plan.plain && p.status && p.recordHash !== plan.recordHash) return 'the record differs from the one synced before; comparing';
  if (p.released && !plan.plain) return 'the progress kept is the plain steps; the order and its shipments say more';
  return undefined;
}

function nextReturn(plan: OrderPlan, p: OrderProgress): LifeNext | undefined {
  for (const ret of plan.returns) {
    const done = p.returns.get(ret.id)?.urls.length ?? 0;
    if (ret.restock && done < ret.variances.length) return write({ kind: 'return', ret, index: done });
  }
  return undefined;
}

/** A cancel: the parts the snapshot says were shipped first (they are a record), then the cancel, or a person when any is. */
function nextCancel(plan: OrderPlan, p: OrderProgress): LifeNext {
  const id = plan.orderId;
  if (p.status === 'cancelled') return nextReturn(plan, p) ?? { kind: 'done' };
  if (p.status === 'completed') return refuse('ORDER_COMPLETED', id, 'the record cancels it, but it is completed in the service');
  if (plan.parts.some((part) => !p.parts.get(part.id)?.shipped)) return p.status ? nextPart(plan, p)! : write({ kind: 'create-order' });
  if (!p.status) return { kind: 'done', why: 'cancelled before it was synced: not created' };
  const shipped = [...p.parts].filter(([, part]) => part.shipped).map(([name]) => name);
  const many = shipped.length > 1;
  if (shipped.length)
    return refuse(
      'CANCEL_AFTER_SHIPPED',
      id,
      `the record cancels it, but its shipment${many ? 's' : ''} ${shipped.join(', ')} ${many ? 'are' : 'is'} shipped; ` +
        'cancelling would cancel the shipped part too, so nothing was cancelled',
      { shipped },
    );
  if (!p.fresh) return { kind: 'read', why: 'a cancel is decided on what the service has now' };
  return write({ kind: 'cancel' });
}

function nextItems(plan: OrderPlan, p: OrderProgress): LifeNext | undefined {
  if (p.items === plan.itemsHash) return undefined;
  const id = plan.orderId;
  if (p.status === 'completed') return refuse('ORDER_COMPLETED', id, 'the record changes its lines, but it is completed in the service');
  // A shipped part whose units the progress does not keep (not the record's part): its shipment says them.
  if (!p.fresh && [...p.parts.values()].some((x) => x.shipped && !x.units))
    return { kind: 'read', why: "a shipped part's units are not known" };
  const below = Object.entries(shippedPerProduct(p)).filter(([url, q]) => (plan.ordered[url] ?? 0) < q - 1e-6);
  if (below.length) {
    const lines = below.map(([url, q]) => `${plan.productIds.get(url) ?? url}: ${plan.ordered[url] ?? 0} ordered, ${q} shipped`);
    const why = `the record's lines are below what was shipped (${lines.join('; ')}); the order was left as it is`;
    return refuse('EDIT_BELOW_SHIPPED', id, why, { lines });
  }
  return write({ kind: p.status === 'locked' ? 'edit' : 'items' });
}

/** Each fulfillment one shipment, shipped; a completed order's shipment is still shipped, but takes no new one. */
function nextPart(plan: OrderPlan, p: OrderProgress): LifeNext | undefined {
  for (const part of plan.parts) {
    const have = p.parts.get(part.id);
    if (have && have.unitsHash !== part.unitsHash) {
      const said =
        `fulfillment ${part.id} is ${have.shipped ? 'shipped' : 'created'} in the service (${have.url}) ` +
        'with other units than the record says';
      return refuse('PART_CHANGED', plan.orderId, said, { fulfillmentId: part.id, shipmentUrl: have.url });
    }
    if (have?.shipped) continue;
    if (!have && p.status === 'completed')
      return refuse(
        'ORDER_COMPLETED',
        plan.orderId,
        `the record ships ${part.id}, but the order is completed in the service (no new shipment)`,
      );
    return write(have ? { kind: 'ship', part } : { kind: 'shipment', part });
  }
  return undefined;
}

/**
 * The one next step that brings the service to the record, from what the progress knows (docs/orders.md "One
 * machine"): the order created, its lines changed (made editable first when committed), committed when open, each
 * fulfillment one shipment shipped, each restocked return its variances, completed when fulfilled; or, cancelled, the
 * shipped parts first and then the cancel. What would lose a record is refused. A pure function: the run and the
 * dry run both ask it.
 */
export function nextLifeStep(plan: OrderPlan, p: OrderProgress): LifeNext {
  if (plan.notice) return nextReturn(plan, p) ?? { kind: 'done' };
  const why = readFirst(plan, p);
  if (why) return { kind: 'read', why };
  if (plan.status === 'cancelled') return nextCancel(plan, p);
  if (!p.status) return write({ kind: 'create-order' });
  if (p.status === 'cancelled')
    return refuse('ORDER_CANCELLED', plan.orderId, `the record says it is ${plan.status}, but it is cancelled in the service`);
  const items = nextItems(plan, p);
  if (items) return items;
  if (plan.status === 'open' && p.status === 'created') return write({ kind: 'lock' });
  const next = nextPart(plan, p) ?? nextReturn(plan, p);
  if (next) return next;
  if (plan.status === 'fulfilled' && p.status !== 'completed') return write({ kind: 'complete' });
  if (plan.status === 'open' && p.status === 'completed')
    return refuse('ORDER_COMPLETED', plan.orderId, 'the record says it is open, but it is completed in the service');
  return { kind: 'done' };
}
