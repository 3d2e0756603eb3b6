/**
 * The named calls of the service whose failures are counted and held apart (src/queue/hold/call-hold.ts), one per
 * purpose: a row of the call table (service-calls.ts) names its own. The order of the list is the order surfaces show.
 */
export const CALL_SCOPES = [
  'order-create',
  'order-actions',
  'shipment-create',
  'shipment-update',
  'variance',
  'product-update',
  'collection-reads',
  'entity-reads',
] as const;

export type CallScope = (typeof CALL_SCOPES)[number];

/** What a person reads: `shipment create`. */
export const callScopeLabel = (scope: string): string => scope.replaceAll('-', ' ');

export const isCallScope = (s: string): s is CallScope => (CALL_SCOPES as readonly string[]).includes(s);
