import type { Drift } from '../../src/ops/reconcile-types.js';
import type { LeftDrift, PlannedRepair, RecordRepairPlan } from '../../src/ops/repair-rule.js';
import { LIFE_FAILURES } from './life-errors.js';
import { BY_HAND, personFirst } from './repair-by-hand.js';

const COMPLETED = 'ORDER_COMPLETED';
const CANCELLED = 'ORDER_CANCELLED';

const CLOSED: Record<string, string> = {
  [COMPLETED]:
    'the order is completed in the service, and a completed order cannot be changed through the API: make it editable ' +
    'in the web application (or correct the record upstream), then repair again',
  [CANCELLED]: `the order is cancelled in the service. ${LIFE_FAILURES.ORDER_CANCELLED}`,
};

/** What the snapshot's job writes for a drift it repairs; undefined: it does not. */
const WRITES: Record<string, string> = {
  'order-missing': 'create the order and bring it to the snapshot (committed, parts shipped, completed, as it says)',
  'order-not-committed': 'commit the order (its units reserved)',
  'order-not-completed': 'complete the order (after its parts are shipped)',
  'order-not-cancelled': 'cancel the order (and its unshipped shipments)',
  'order-items': "change the order's lines (made editable first when committed, then committed again)",
  'shipment-missing': "create the fulfillment's shipment and ship it",
  'shipment-not-shipped': "ship the fulfillment's shipment",
  'return-not-restocked': 'restock the return (its variances not yet recorded), once',
};

/** Why a person fixes a drift of an order that lives, when its job cannot; undefined: the job repairs it. */
function byHand(d: Drift, statusId: string, shippedOfCancelled: boolean): string | undefined {
  if (d.kind === 'shipped-of-cancelled' || (d.kind === 'order-not-cancelled' && shippedOfCancelled))
    return (
      'a part of the order is shipped, but the record cancels it: cancelling would cancel that shipment too. ' +
      LIFE_FAILURES.CANCEL_AFTER_SHIPPED
    );
  if (d.kind === 'order-missing' && d.synced.includes(CANCELLED))
    return (
      'the order is gone from the service and the record cancels it: nothing to do, ' +
      'unless it should stand (then create it in the web application)'
    );
  if (BY_HAND[d.kind]) return BY_HAND[d.kind];
  if (!WRITES[d.kind]) return `no repair for ${d.kind}`;
  // A return's variance is written whatever the order's status; the rest needs an order the API may change.
  if (d.kind !== 'return-not-restocked' && d.kind !== 'order-missing' && CLOSED[statusId]) return CLOSED[statusId];
  return undefined;
}

/**
 * `reconcile --repair` of an order that lives: one job of its last snapshot, reading the service first (LifeRun with
 * fromService), writes what the service still allows: the order created, committed, its lines changed, each part
 * shipped, returns restocked, completed or cancelled. What the service cannot do without losing a record (a shipped
 * part of a cancelled snapshot, any change to a completed or cancelled order) is left to a person, with the reason.
 */
export function lifeRepairs(drifts: Drift[]): RecordRepairPlan {
  const repairs: PlannedRepair[] = [];
  const left: LeftDrift[] = [];
  const statusId = String((drifts[0]!.target as { statusId?: unknown } | undefined)?.statusId ?? 'none');
  const shippedOfCancelled = drifts.some((d) => d.kind === 'shipped-of-cancelled');
  for (const d of drifts) {
    const why = byHand(d, statusId, shippedOfCancelled);
    if (why) left.push({ drift: d, action: 'by-hand', why });
    else repairs.push({ drift: d, what: WRITES[d.kind]! });
  }
  // The job would refuse the snapshot while these stand (it compares what it may not change): the person goes first.
  personFirst(left, repairs, (l) => l.drift.kind !== 'return-not-restocked');
  return { repairs, left };
}
