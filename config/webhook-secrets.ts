/** The secrets pushes are signed with, as INGEST_SECRET and INGEST_HMAC_SECRET give them (several during a rotation). */

const PREFIX = 'whsec_';
/** Fewest random bytes a Standard Webhooks secret must hold (the standard asks for 24 to 64). */
const MIN_KEY_BYTES = 16;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The comma-separated items of a setting, trimmed, empty ones dropped. */
export function secretList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** Why a Standard Webhooks secret list cannot be used, or undefined. Never quotes a value: they are secrets. */
export function webhookSecretsProblem(text: string): string | undefined {
  const items = secretList(text);
  if (items.length === 0) return 'must hold at least one secret, such as whsec_<base64 of 32 random bytes>';
  for (const [i, item] of items.entries()) {
    const which = items.length > 1 ? `secret ${i + 1} of ${items.length}` : 'the secret';
    if (!item.startsWith(PREFIX)) return `${which} must start with ${PREFIX} (whsec_<base64>)`;
    const b64 = item.slice(PREFIX.length);
    if (!BASE64.test(b64) || b64.length % 4 === 1) return `${which} must be ${PREFIX} followed by base64`;
    if (Buffer.from(b64, 'base64').length < MIN_KEY_BYTES)
      return `${which} must hold at least ${MIN_KEY_BYTES} random bytes (whsec_ followed by their base64)`;
  }
  return undefined;
}

/** The HMAC keys of a Standard Webhooks secret list: each secret's base64 after `whsec_`, decoded (other items left out). */
export function webhookKeys(text: string): Buffer[] {
  return secretList(text)
    .filter((s) => s.startsWith(PREFIX))
    .map((s) => Buffer.from(s.slice(PREFIX.length), 'base64'))
    .filter((k) => k.length > 0);
}

/** The HMAC keys of a store-webhook secret list (INGEST_HMAC_SECRET): each secret's bytes as given. */
export function hmacKeys(text: string): Buffer[] {
  return secretList(text).map((s) => Buffer.from(s, 'utf8'));
}
