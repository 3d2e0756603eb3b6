import { createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { sameSecret } from '../secrets/same-secret.js';

/** Which way a delivery was signed: Standard Webhooks, or a store's HMAC of the body (Shopify's form). */
export type SignatureScheme = 'standard-webhooks' | 'store-hmac';

/** A signature checked: the delivery's id (the sender's, kept across its retries), or why it is refused (never a secret). */
export type DeliveryCheck = { ok: true; deliveryId: string; scheme: SignatureScheme } | { ok: false; code: RefusalCode; reason: string };

/** Why a signature was refused, as logs and metrics group it: not signed, too old or new, not matching, not readable. */
export type RefusalCode = 'UNSIGNED' | 'STALE' | 'NO_MATCH' | 'MALFORMED';

export interface VerifyKeys {
  webhook: readonly Buffer[];
  hmac: readonly Buffer[];
}

/** Longest delivery id taken (it names a Redis key, hashed, and a log field). */
const MAX_ID_CHARS = 256;
const SECONDS = /^\d{1,12}$/;

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  const s = Array.isArray(v) ? v[0] : v;
  return s === undefined || s === '' ? undefined : s;
}

/** Whether one of the given base64 signatures is the expected one; compared in constant time. */
function anyMatch(expected: readonly string[], given: readonly string[]): boolean {
  let match = false;
  // Every pair is compared, so the time tells nothing of which key or signature matched.
  for (const e of expected) for (const g of given) if (sameSecret(e, g)) match = true;
  return match;
}

/**
 * Standard Webhooks: `webhook-signature` holds space-separated `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`,
 * keyed by a secret's decoded bytes; the timestamp may be at most `toleranceSeconds` from now either way.
 */
function verifyStandard(
  headers: IncomingHttpHeaders,
  body: Buffer,
  keys: readonly Buffer[],
  nowMs: number,
  toleranceSeconds: number,
): DeliveryCheck {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signature = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signature)
    return { ok: false, code: 'UNSIGNED', reason: 'unsigned: webhook-id, webhook-timestamp and webhook-signature are all required' };
  if (id.length > MAX_ID_CHARS) return { ok: false, code: 'MALFORMED', reason: `webhook-id is longer than ${MAX_ID_CHARS} characters` };
  if (!SECONDS.test(timestamp))
    return { ok: false, code: 'MALFORMED', reason: 'webhook-timestamp is not a whole number of seconds since the epoch' };
  const skew = Math.round(Math.abs(nowMs / 1000 - Number(timestamp)));
  if (skew > toleranceSeconds)
    return {
      ok: false,
      code: 'STALE',
      reason: `stale: webhook-timestamp is ${skew} s from now (at most ${toleranceSeconds} s either way)`,
    };
  const given = signature
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .map((s) => s.slice(3));
  if (given.length === 0) return { ok: false, code: 'MALFORMED', reason: 'webhook-signature holds no v1 signature' };
  const expected = keys.map((k) => createHmac('sha256', k).update(`${id}.${timestamp}.`).update(body).digest('base64'));
  if (!anyMatch(expected, given)) return { ok: false, code: 'NO_MATCH', reason: 'webhook-signature matches no secret' };
  return { ok: true, deliveryId: id, scheme: 'standard-webhooks' };
}

/** A store's webhook (Shopify's form): `X-Shopify-Hmac-Sha256`, base64 HMAC-SHA256 of the raw body; its id in `X-Shopify-Webhook-Id`. */
function verifyStoreHmac(headers: IncomingHttpHeaders, body: Buffer, keys: readonly Buffer[]): DeliveryCheck {
  const signature = header(headers, 'x-shopify-hmac-sha256')!;
  const id = header(headers, 'x-shopify-webhook-id');
  if (keys.length === 0)
    return { ok: false, code: 'UNSIGNED', reason: 'a store-webhook signature came, but INGEST_HMAC_SECRET is not set' };
  if (!id) return { ok: false, code: 'UNSIGNED', reason: 'unsigned: X-Shopify-Webhook-Id is required with X-Shopify-Hmac-Sha256' };
  if (id.length > MAX_ID_CHARS)
    return { ok: false, code: 'MALFORMED', reason: `X-Shopify-Webhook-Id is longer than ${MAX_ID_CHARS} characters` };
  const expected = keys.map((k) => createHmac('sha256', k).update(body).digest('base64'));
  if (!anyMatch(expected, [signature.trim()])) return { ok: false, code: 'NO_MATCH', reason: 'X-Shopify-Hmac-Sha256 matches no secret' };
  return { ok: true, deliveryId: id, scheme: 'store-hmac' };
}

/** Checks a delivery's signature over its raw bytes, in whichever scheme it came signed. */
export function verifyDelivery(
  headers: IncomingHttpHeaders,
  body: Buffer,
  keys: VerifyKeys,
  nowMs: number,
  toleranceSeconds: number,
): DeliveryCheck {
  if (header(headers, 'webhook-signature') !== undefined || header(headers, 'x-shopify-hmac-sha256') === undefined)
    return verifyStandard(headers, body, keys.webhook, nowMs, toleranceSeconds);
  return verifyStoreHmac(headers, body, keys.hmac);
}
