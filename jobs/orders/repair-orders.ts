import type { Drift } from '../../src/ops/reconcile-types.js';
import type { LeftDrift, PlannedRepair, RepairRule } from '../../src/ops/repair-rule.js';
import { LIFE_FAILURES } from './order-errors.js';

const COMPLETED = 'ORDER_COMPLETED';
const CANCELLED = 'ORDER_CANCELLED';

/** What a person does about the order drifts the API cannot repair. */
const BY_HAND: Record<string, string> = {
  'order-lines':
    'the order in the service has other lines than the record; a completed order cannot be changed through the API: ' +
    'edit it in the web application, or send a corrected record once the order is editable',
  'order-origin': "the order's origin differs from the record's; correct it in the web application",
  'shipment-extra':
    'the order has more than one live shipment; cancel the extra one(s) in the web application (stock may have been taken for each)',
};

const CLOSED: Record<string, string> = {
  [COMPLETED]:
    'the order is completed in the service, and a completed order cannot be changed through the API (it takes no new ' +
    'shipment): make it editable in the web application (or correct the record upstream), then repair again',
  [CANCELLED]: `the order is cancelled in the service. ${LIFE_FAILURES.ORDER_CANCELLED}`,
};

/** What the record's job writes for a drift it repairs: [a plain order's words, a snapshot's]. */
const WRITES: Record<string, [plain: string | undefined, life: string]> = {
  'order-missing': [
    'create the order and its shipment, ship it, complete the order',
    'create the order and bring it to the snapshot (committed, parts shipped, completed, as it says)',
  ],
  'order-not-committed': [undefined, 'commit the order (its units reserved)'],
  'order-not-completed': ['complete the order', 'complete the order (after its parts are shipped)'],
  'order-not-cancelled': [undefined, 'cancel the order (and its unshipped shipments)'],
  'order-items': [undefined, "change the order's lines (made editable first when committed, then committed again)"],
  'shipment-missing': ['create the shipment and ship it', "create the fulfillment's shipment and ship it"],
  'shipment-not-shipped': ['ship the shipment', "ship the fulfillment's shipment"],
  'return-not-restocked': [undefined, 'restock the return (its variances not yet recorded), once'],
};

/**
 * The order's status in the service, as its drifts tell it: a snapshot's carry it; a plain order's status drift says
 * it, and without one the order is completed, as its record asks.
 */
function statusOf(drifts: Drift[]): string {
  const target = drifts[0]!.target as { statusId?: unknown } | undefined;
  if (target?.statusId !== undefined) return String(target.statusId);
  if (drifts.some((d) => d.kind === 'order-missing')) return 'none';
  return drifts.find((d) => d.kind === 'order-not-completed')?.service ?? COMPLETED;
}

/** Why a person fixes a drift, when the order's job cannot; undefined: the job repairs it. */
function byHand(d: Drift, statusId: string, life: boolean, shippedOfCancelled: boolean): string | undefined {
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
  if (!WRITES[d.kind]?.[life ? 1 : 0]) return `no repair for ${d.kind}`;
  // A return's variance is written whatever the order's status, and a plain order's shipment is shipped under a
  // completed order (it takes no new one); the rest needs an order the API may change.
  const open = d.kind === 'return-not-restocked' || d.kind === 'order-missing' || (!life && d.kind === 'shipment-not-shipped');
  return open ? undefined : CLOSED[statusId];
}

/**
 * `reconcile --repair` of an order: one job of its last record, reading the service first (the job with fromService),
 * writes what the service still allows: the order created, committed, its lines changed, each part shipped, returns
 * restocked, completed or cancelled. What the service cannot do without losing a record (a shipped part of a cancelled
 * snapshot, a change to a completed or cancelled order, other lines or origin of a plain order) is left to a person,
 * with the reason; while such a drift stands, the job would refuse the record, so the person goes first.
 */
export const orderRepair: RepairRule = {
  plan(drifts) {
    const repairs: PlannedRepair[] = [];
    const left: LeftDrift[] = [];
    const life = drifts.some((d) => (d.target as { life?: boolean } | undefined)?.life);
    const statusId = statusOf(drifts);
    const shippedOfCancelled = drifts.some((d) => d.kind === 'shipped-of-cancelled');
    for (const d of drifts) {
      const why = byHand(d, statusId, life, shippedOfCancelled);
      if (why) left.push({ drift: d, action: 'by-hand', why });
      else repairs.push({ drift: d, what: WRITES[d.kind]![life ? 1 : 0]! });
    }
    if (left.some((l) => l.drift.kind !== 'return-not-restocked') && repairs.length)
      for (const r of repairs.splice(0))
        left.push({ drift: r.drift, action: 'skipped', why: `would ${r.what}, after the drifts of this order left to a person are fixed` });
    return { repairs, left };
  },
};
