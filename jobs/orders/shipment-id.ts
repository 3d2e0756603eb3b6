import { createHash } from 'node:crypto';

const SAFE_ID = /^[A-Za-z0-9._-]{1,60}$/;

/**
 * The shipmentId sent with an order's one shipment, derived from the orderId alone so that a service that keeps
 * it refuses a repeated create as a duplicate. Never relied on: the service may ignore it and assign its own
 * (docs/service.md), so no URL is built from it; the shipment is found through the order (find-shipment.ts).
 * `SHP-{orderId}` when the orderId is URL-safe (letters, digits, . _ -; at most 60), else
 * `SHPX-{first 32 hex of sha256(orderId)}`. The two forms cannot collide ("SHP-" vs "SHPX"), and both stay
 * within 64 characters of [A-Za-z0-9._-].
 */
export function shipmentIdFor(orderId: string): string {
  if (SAFE_ID.test(orderId)) return `SHP-${orderId}`;
  return `SHPX-${createHash('sha256').update(orderId, 'utf8').digest('hex').slice(0, 32)}`;
}

/** The shipment's user-facing name when the record gives none (docs/records.md). */
export function defaultShipmentIdUser(orderId: string): string {
  return `${orderId}-1`;
}
