import type { ServiceError } from '../../src/client/answers/errors.js';
import { pathProblem } from '../../src/client/api-path.js';
import type { ServiceApi } from '../../src/client/service-api.js';
import { HINTS } from '../../src/errors/error-hints.js';
import { ConflictError, PermanentJobError } from '../../src/queue/job-errors.js';
import { describeDifferences, type Difference } from './order-compare.js';

/** Codes after which a write is read back: the entity may exist already, or the order be closed. */
export const READ_BACK: ReadonlySet<string> = new Set(['DUPLICATE', 'INTEGRITY_VIOLATION', 'ORDER_COMPLETED']);
/** Codes that no retry fixes and that are about the request, not the credentials. */
export const REFUSED: ReadonlySet<string> = new Set([
  'MISSING_REFERENCE',
  'VALIDATION',
  'NOT_FOUND',
  'BAD_RESPONSE',
  'DUPLICATE',
  'INTEGRITY_VIOLATION',
  'ORDER_COMPLETED',
]);

/** The service has this order (or its shipment) already, and it differs from the record. */
export function orderConflict(orderId: string, what: 'order' | 'shipment', diffs: Difference[]): ConflictError {
  return new ConflictError(
    `order ${orderId}: the ${what} already exists in the service and differs from the record: ${describeDifferences(diffs)}`,
    'The service keeps what it has. Correct the record upstream to match, or change the order in the service, then retry the job.',
    { orderId, differences: diffs },
    `the ${what} already exists in the service and differs from the record`,
  );
}

/** The order is completed in the service and the record would change it. */
export function completedOrderChanged(orderId: string, diffs: Difference[]): PermanentJobError {
  return new PermanentJobError(
    'ORDER_COMPLETED',
    `order ${orderId} is completed in the service and the record would change it (${describeDifferences(diffs)}); ` +
      'completed orders cannot be modified until made editable again',
    'Make the order editable again in the service, then retry the job; or correct the record upstream to match the completed order.',
    { orderId, differences: diffs },
    'completed in the service and the record would change it',
  );
}

/**
 * The order's URLs as the service makes them from its orderId (`/{account}/api/order/{orderId}`, its actions below),
 * checked before the order is created: when this program would refuse to follow them (an orderId whose `..` climb out
 * of the account's API), nothing is written, rather than an order created, shipped and never completed.
 */
export function refuseUnfollowedOrder(orderId: string, api: Pick<ServiceApi, 'account' | 'entityPath'>): void {
  const orderUrl = api.entityPath('order', orderId);
  for (const path of [orderUrl, `${orderUrl}/complete`]) {
    const problem = pathProblem(path, api.account);
    if (problem === undefined) continue;
    throw new UnfollowedOrderError(
      `order ${orderId}: not created, for this program would refuse to follow its URL ${JSON.stringify(path)} ` +
        `(the service was not asked): the path ${problem}`,
      { orderId, path },
    );
  }
}

/** NOT_FOLLOWED before anything is sent: the orderId stays what it is, so no retry can help. */
class UnfollowedOrderError extends PermanentJobError {
  constructor(message: string, details: Record<string, unknown>) {
    super('NOT_FOLLOWED', message, HINTS.NOT_FOLLOWED, details);
  }

  override get retryHelps(): boolean {
    return false;
  }
}

/** A write the service refused for a reason retrying cannot fix (missing reference, invalid body). */
export function serviceRefused(orderId: string, step: string, err: ServiceError): PermanentJobError {
  const why = err.msg ?? err.message;
  const details = { orderId, step, code: err.code, status: err.status, path: err.path, msg: err.msg };
  // One group for every order the service refuses alike: the step and its answer, without the order and its path.
  const group = `the service refused to ${step}: ${err.msg ?? err.groupReason}`;
  return new PermanentJobError('SERVICE_REFUSED', `order ${orderId}: the service refused to ${step}: ${why}`, err.hint, details, group);
}

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
  return new PermanentJobError(code, `order ${orderId}: ${why}`, hint, { orderId, ...details }, why);
}
