import { createHmac, randomBytes } from 'node:crypto';

/** A fresh Standard Webhooks secret: `whsec_` and the base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The headers a Standard Webhooks sender puts on a body: its id, the time now and the v1 HMAC-SHA256 signature. */
export function webhookHeaders(secret: string, id: string, body: string): Record<string, string> {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64')}`;
  return { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature };
}

/** The pth percentile (0..100) of numbers sorted ascending; 0 for none. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
