import { PermanentJobError } from '../../src/queue/job-errors.js';

/**
 * What the service cannot do without losing a record, left to a person (docs/orders.md "Left to a person"): each code
 * with what to do about it. The kind declares them (`failures`), so `jobs show` and the dashboard give the hint.
 */
export const LIFE_FAILURES = {
  CANCEL_AFTER_SHIPPED:
    'A part of the order is shipped: cancelling it in the service would cancel that shipment and lose its record. ' +
    'Cancel the rest of the order in the service by hand (or leave it), and record the return of what came back upstream.',
  EDIT_BELOW_SHIPPED:
    'The record asks for fewer units than were already shipped. Record the units that came back as a return upstream ' +
    '(a corrected snapshot with the line at least what shipped), or change the order in the service by hand.',
  PART_CHANGED:
    'A fulfillment already in the service carries other units than the record now says; a shipped part cannot change. ' +
    'Correct the record upstream, or cancel the unshipped shipment in the service, then retry.',
  ORDER_CANCELLED:
    'The order is cancelled in the service and cannot change any more. If the record is right, create the order again ' +
    'under a new orderId upstream; otherwise correct the record.',
} as const satisfies Record<string, string>;

export type LifeFailure = keyof typeof LIFE_FAILURES;

export function lifeRefusal(code: LifeFailure | 'ORDER_COMPLETED', orderId: string, why: string, details: Record<string, unknown> = {}) {
  const hint =
    code === 'ORDER_COMPLETED'
      ? 'The order is completed in the service: nothing more is changed by this program. Make it editable in the service ' +
        '(actionUrlEdit) and retry, or leave it and correct the record upstream.'
      : LIFE_FAILURES[code];
  return new PermanentJobError(code, `order ${orderId}: ${why}`, hint, { orderId, ...details });
}
