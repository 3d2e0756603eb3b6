import type { RecordStream } from '../records/records.js';

/**
 * The records to queue for one element of a push's body (the body itself, or each item of an array body): today
 * the element as it came. The one place where what a sender pushes becomes records of our shapes.
 */
export function deliveryRecords(def: RecordStream, element: unknown): unknown[] {
  return [element];
}
