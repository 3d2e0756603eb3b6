import { describe, expect, it } from 'vitest';
import { verifyDelivery } from '../../src/ingest/verify-delivery.js';
import { keyOf, newSecret, signatureOf } from './push-sender.js';

const SECRET = newSecret();
const NOW_MS = 1_795_000_000_000;
const TS = NOW_MS / 1000;
const BODY = '{"orderId":"V-1"}';

/** The headers a sender signs BODY with, some of them replaced. */
function headers(over: Record<string, string | undefined> = {}) {
  const h: Record<string, string | undefined> = {
    'webhook-id': 'msg_v1',
    'webhook-timestamp': String(TS),
    'webhook-signature': signatureOf([SECRET], 'msg_v1', TS, BODY),
    ...over,
  };
  return Object.fromEntries(Object.entries(h).filter(([, v]) => v !== undefined)) as Record<string, string>;
}

const verify = (h: Record<string, string>, body = BODY) =>
  verifyDelivery(h, Buffer.from(body), { webhook: [keyOf(SECRET)], hmac: [] }, NOW_MS, 300);

describe('a Standard Webhooks signature', () => {
  it('is taken over the raw bytes, keyed by the secret, within 5 minutes either way', () => {
    expect(verify(headers())).toEqual({ ok: true, deliveryId: 'msg_v1', scheme: 'standard-webhooks' });
    const at = (ts: number) => headers({ 'webhook-timestamp': String(ts), 'webhook-signature': signatureOf([SECRET], 'msg_v1', ts, BODY) });
    expect(verify(at(TS - 300)).ok).toBe(true);
    expect(verify(at(TS + 300)).ok).toBe(true);
  });

  it.each([
    ['a body changed on the way', headers(), '{"orderId":"V-2"}', 'NO_MATCH'],
    ['another secret', headers({ 'webhook-signature': signatureOf([newSecret()], 'msg_v1', TS, BODY) }), BODY, 'NO_MATCH'],
    ['another id than the one signed', headers({ 'webhook-id': 'msg_v2' }), BODY, 'NO_MATCH'],
    ['no signature header', headers({ 'webhook-signature': undefined }), BODY, 'UNSIGNED'],
    ['no id', headers({ 'webhook-id': undefined }), BODY, 'UNSIGNED'],
    ['a timestamp 301 s old', headers({ 'webhook-timestamp': String(TS - 301) }), BODY, 'STALE'],
    ['a timestamp in milliseconds', headers({ 'webhook-timestamp': String(NOW_MS) }), BODY, 'MALFORMED'],
    ['a timestamp that is not a number', headers({ 'webhook-timestamp': '2026-11-26T09:00:00Z' }), BODY, 'MALFORMED'],
    ['only a signature of another version', headers({ 'webhook-signature': 'v1a,abc' }), BODY, 'MALFORMED'],
    ['an id of 257 characters', headers({ 'webhook-id': 'x'.repeat(257) }), BODY, 'MALFORMED'],
  ])('is refused with %s', (_what, h, body, code) => {
    const check = verify(h, body);
    expect(check).toMatchObject({ ok: false, code });
  });

  it('is taken when one of several space-separated signatures matches', () => {
    const good = signatureOf([SECRET], 'msg_v1', TS, BODY);
    expect(verify(headers({ 'webhook-signature': `v2,zzz v1,AAAA ${good}` })).ok).toBe(true);
  });
});
