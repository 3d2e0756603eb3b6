import type { PermanentJobError } from '../../src/queue/job-errors.js';
import { lifeRefusal } from './life-errors.js';
import type { LifePlan, PlannedPart, PlannedReturn } from './life-plan.js';
import type { LifeProgress } from './life-progress.js';
import { sameUnits } from './life-read.js';

/** The next write a snapshot needs, named as its `pending` marker. */
export type LifeWriteStep =
  | { kind: 'create-order' | 'lock' | 'edit' | 'items' | 'complete' | 'cancel' }
  | { kind: 'shipment' | 'ship'; part: PlannedPart }
  | { kind: 'return'; ret: PlannedReturn; index: number };

/** What the snapshot needs next: a write, nothing (done, with why when nothing was to be done), or a person. */
export type LifeNext =
  { kind: 'write'; step: LifeWriteStep; pending: string } | { kind: 'done'; why?: string } | { kind: 'refuse'; error: PermanentJobError };

const write = (step: LifeWriteStep): LifeNext => ({
  kind: 'write',
  step,
  pending: 'part' in step ? `${step.kind}:${step.part.id}` : 'ret' in step ? `return:${step.ret.id}:${step.index}` : step.kind,
});

/** Units shipped per productUrl over the order's shipped parts. */
function shippedPerProduct(p: LifeProgress): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of p.parts.values()) {
    if (!part.shipped) continue;
    for (const [k, q] of Object.entries(part.units)) {
      const product = k.slice(0, k.lastIndexOf('@'));
      out[product] = (out[product] ?? 0) + q;
    }
  }
  return out;
}

function nextReturn(plan: LifePlan, p: LifeProgress): LifeNext | undefined {
  for (const ret of plan.returns) {
    const done = p.returns.get(ret.id)?.urls.length ?? 0;
    if (ret.restock && done < ret.variances.length) return write({ kind: 'return', ret, index: done });
  }
  return undefined;
}

function nextCancel(plan: LifePlan, p: LifeProgress): LifeNext {
  const id = plan.orderId;
  if (!p.status) return { kind: 'done', why: 'cancelled before it was synced: not created' };
  if (p.status === 'cancelled') return nextReturn(plan, p) ?? { kind: 'done' };
  if (p.status === 'completed')
    return { kind: 'refuse', error: lifeRefusal('ORDER_COMPLETED', id, 'the record cancels it, but it is completed in the service') };
  const shipped = [...p.parts].filter(([, part]) => part.shipped).map(([name]) => name);
  if (shipped.length)
    return {
      kind: 'refuse',
      error: lifeRefusal(
        'CANCEL_AFTER_SHIPPED',
        id,
        `the record cancels it, but its shipment${shipped.length > 1 ? 's' : ''} ${shipped.join(', ')} ` +
          `${shipped.length > 1 ? 'are' : 'is'} shipped; ` +
          'cancelling would cancel the shipped part too, so nothing was cancelled',
        { shipped },
      ),
    };
  return write({ kind: 'cancel' });
}

function nextItems(plan: LifePlan, p: LifeProgress): LifeNext | undefined {
  if (p.items === plan.itemsHash) return undefined;
  const id = plan.orderId;
  if (p.status === 'completed')
    return {
      kind: 'refuse',
      error: lifeRefusal('ORDER_COMPLETED', id, 'the record changes its lines, but it is completed in the service'),
    };
  const shipped = shippedPerProduct(p);
  const below = Object.entries(shipped).filter(([url, q]) => (plan.ordered[url] ?? 0) < q - 1e-6);
  if (below.length) {
    const said = below.map(([url, q]) => `${plan.names.get(url) ?? url}: ${plan.ordered[url] ?? 0} ordered, ${q} shipped`);
    return {
      kind: 'refuse',
      error: lifeRefusal(
        'EDIT_BELOW_SHIPPED',
        id,
        `the record's lines are below what was shipped (${said.join('; ')}); the order was left as it is`,
        {
          lines: said,
        },
      ),
    };
  }
  return write({ kind: p.status === 'locked' ? 'edit' : 'items' });
}

function nextPart(plan: LifePlan, p: LifeProgress): LifeNext | undefined {
  for (const part of plan.parts) {
    const have = p.parts.get(part.id);
    if (have && !sameUnits(have.units, part.units))
      return {
        kind: 'refuse',
        error: lifeRefusal(
          'PART_CHANGED',
          plan.orderId,
          `fulfillment ${part.id} is ${have.shipped ? 'shipped' : 'created'} in the service (${have.url}) ` +
            'with other units than the record says',
          { fulfillmentId: part.id, shipmentUrl: have.url },
        ),
      };
    if (have?.shipped) continue;
    if (p.status === 'completed')
      return {
        kind: 'refuse',
        error: lifeRefusal(
          'ORDER_COMPLETED',
          plan.orderId,
          `the record adds fulfillment ${part.id}, but the order is completed in the service`,
        ),
      };
    return write(have ? { kind: 'ship', part } : { kind: 'shipment', part });
  }
  return undefined;
}

/**
 * The one next write that brings the service to the snapshot, from what the progress knows: the order created, its
 * lines changed (made editable first when committed), committed when open, each fulfillment one shipment shipped,
 * each restocked return its variances, completed when fulfilled; or cancelled. What would lose a record is refused.
 */
export function nextLifeStep(plan: LifePlan, p: LifeProgress): LifeNext {
  if (plan.notice) return nextReturn(plan, p) ?? { kind: 'done' };
  if (plan.status === 'cancelled') return nextCancel(plan, p);
  if (!p.status) return write({ kind: 'create-order' });
  if (p.status === 'cancelled')
    return {
      kind: 'refuse',
      error: lifeRefusal('ORDER_CANCELLED', plan.orderId, `the record says it is ${plan.status}, but it is cancelled in the service`),
    };
  const items = nextItems(plan, p);
  if (items) return items;
  if (plan.status === 'open' && p.status === 'created') return write({ kind: 'lock' });
  const part = nextPart(plan, p);
  if (part) return part;
  const ret = nextReturn(plan, p);
  if (ret) return ret;
  if (plan.status === 'fulfilled' && p.status !== 'completed') return write({ kind: 'complete' });
  if (plan.status === 'open' && p.status === 'completed')
    return {
      kind: 'refuse',
      error: lifeRefusal('ORDER_COMPLETED', plan.orderId, 'the record says it is open, but it is completed in the service'),
    };
  return { kind: 'done' };
}
