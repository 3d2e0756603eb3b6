import { createHmac, randomBytes, randomUUID } from 'node:crypto';

/** A fresh Standard Webhooks secret (whsec_ and the base64 of 32 random bytes). */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The HMAC key of a whsec_ secret. */
export function keyOf(secret: string): Buffer {
  return Buffer.from(secret.slice('whsec_'.length), 'base64');
}

export interface PushOptions {
  /** Signs with these secrets (each a v1 signature); none: unsigned. */
  secrets?: string[];
  id?: string;
  /** Seconds since the epoch. Default now. */
  timestamp?: number;
  /** The raw body; default JSON of `body`. */
  raw?: string;
  headers?: Record<string, string>;
  method?: string;
  /** Sends these bytes in place of the signed ones (a body changed on the way). */
  tampered?: string;
}

export interface PushAnswer {
  status: number;
  body: Record<string, any>;
  headers: Headers;
}

/** The Standard Webhooks signature header of a body, as a sender computes it. */
export function signatureOf(secrets: string[], id: string, timestamp: number, raw: string): string {
  return secrets.map((s) => `v1,${createHmac('sha256', keyOf(s)).update(`${id}.${timestamp}.`).update(raw).digest('base64')}`).join(' ');
}

/** POSTs a body to `{url}/ingest/{stream}` as a sender does. */
export async function push(url: string, stream: string, body: unknown, o: PushOptions = {}): Promise<PushAnswer> {
  const raw = o.raw ?? JSON.stringify(body);
  const id = o.id ?? `msg_${randomUUID()}`;
  const timestamp = o.timestamp ?? Math.floor(Date.now() / 1000);
  const signed: Record<string, string> = o.secrets?.length
    ? { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signatureOf(o.secrets, id, timestamp, raw) }
    : {};
  const res = await fetch(`${url}/ingest/${stream}`, {
    method: o.method ?? 'POST',
    headers: { 'content-type': 'application/json', ...signed, ...o.headers },
    ...(o.method === 'GET' ? {} : { body: o.tampered ?? raw }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : {}, headers: res.headers };
}
