import type { Drift } from '../../src/ops/reconcile-types.js';
import type { LeftDrift, PlannedRepair, RepairRule } from '../../src/ops/repair-rule.js';
import { lifeRepairs } from './repair-life.js';
import { BY_HAND, personFirst } from './repair-by-hand.js';

const ORDER_CANCELLED = 'ORDER_CANCELLED';

/**
 * `reconcile --repair` of an order: one job of the synced record, planned from the service (read the order and its
 * shipment, then write only what is missing). Lines, origin and extra shipments are a person's; so is a shipment
 * missing under an order that is completed (a completed order takes no new shipment) and a cancelled order. An order
 * that lives is repaired by its last snapshot's job (repair-life.ts).
 */
export const orderRepair: RepairRule = {
  plan(drifts) {
    if (drifts.some((d) => (d.target as { life?: boolean } | undefined)?.life)) return lifeRepairs(drifts);
    const repairs: PlannedRepair[] = [];
    const left: LeftDrift[] = [];
    const has = (kind: string) => drifts.some((d) => d.kind === kind);
    const open = has('order-not-completed') || has('order-missing');
    const hand = (d: Drift, why: string) => left.push({ drift: d, action: 'by-hand', why });
    for (const d of drifts) {
      if (BY_HAND[d.kind]) hand(d, BY_HAND[d.kind]!);
      else if (d.kind === 'order-not-completed' && d.service === ORDER_CANCELLED)
        hand(d, 'the order is cancelled in the service; the API cannot reopen it: recreate it in the web application if it should stand');
      else if (d.kind === 'shipment-missing' && !open)
        hand(
          d,
          'the order is completed and a completed order takes no new shipment: make it editable in the web application, then repair again',
        );
      else if (d.kind === 'order-missing')
        repairs.push({ drift: d, what: 'create the order and its shipment, ship it, complete the order' });
      else if (d.kind === 'order-not-completed') repairs.push({ drift: d, what: 'complete the order' });
      else if (d.kind === 'shipment-missing') repairs.push({ drift: d, what: 'create the shipment and ship it' });
      else if (d.kind === 'shipment-not-shipped') repairs.push({ drift: d, what: 'ship the shipment' });
      else hand(d, `no repair for ${d.kind}`);
    }
    // The job compares the order with the record first and refuses it while they differ: the person goes first.
    personFirst(left, repairs, (l) => l.drift.kind !== 'shipment-missing');
    return { repairs, left };
  },
};
