import type { LeftDrift, PlannedRepair } from '../../src/ops/repair-rule.js';

/** What a person does about the order drifts the API cannot repair. */
export const BY_HAND: Record<string, string> = {
  'order-lines':
    'the order in the service has other lines than the record; a completed order cannot be changed through the API: ' +
    'edit it in the web application, or send a corrected record once the order is editable',
  'order-origin': "the order's origin differs from the record's; correct it in the web application",
  'shipment-extra':
    'the order has more than one live shipment; cancel the extra one(s) in the web application (stock may have been taken for each)',
};

/** The drifts of one order that a person fixes first: while they stand, its job compares and refuses. */
export function personFirst(left: LeftDrift[], repairs: PlannedRepair[], waits: (l: LeftDrift) => boolean): void {
  if (!left.some((l) => l.action === 'by-hand' && waits(l)) || !repairs.length) return;
  for (const r of repairs.splice(0))
    left.push({ drift: r.drift, action: 'skipped', why: `would ${r.what}, after the drifts of this order left to a person are fixed` });
}
