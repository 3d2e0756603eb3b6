import { defaults } from '../../config/defaults.js';
import { SecretFile } from '../secret-file.js';
import { hmacKeys, secretList, webhookKeys, webhookSecretsProblem } from './webhook-secrets.js';

/** The keys a push may be signed with, by scheme; what the receiver asks for each delivery. */
export interface SigningKeys {
  /** Standard Webhooks keys (INGEST_SECRET), decoded; several during a rotation. */
  webhook(): readonly Buffer[];
  /** Store-webhook keys (INGEST_HMAC_SECRET); none when that scheme is off. */
  hmac(): readonly Buffer[];
  /**
   * Reads the secrets' files again (at most once per `recheckMs`, callers at once share one read), after a signature
   * that matched no key: a rotated file is picked up without a restart. Answers whether the keys changed.
   */
  refresh(): Promise<boolean>;
}

export interface SigningKeySources {
  /** INGEST_SECRET as read at start (whsec_..., comma-separated), and its file (INGEST_SECRET_FILE) when given so. */
  secret?: string;
  secretFile?: string;
  /** INGEST_HMAC_SECRET and INGEST_HMAC_SECRET_FILE. */
  hmacSecret?: string;
  hmacSecretFile?: string;
  /** A file read again holds new secrets (the logger must learn them), or could not be used: one line, never a value. */
  onChange?(values: string[]): void;
  onProblem?(line: string): void;
  recheckMs?: number;
  now?: () => number;
}

/** Keys that never change (tests, benches). */
export function fixedSigningKeys(webhook: readonly Buffer[], hmac: readonly Buffer[] = []): SigningKeys {
  return { webhook: () => webhook, hmac: () => hmac, refresh: async () => false };
}

/** The signing keys of the configuration, read again from their files (when given so) after a signature matched none. */
export function signingKeys(s: SigningKeySources): SigningKeys {
  const problem = (name: string) => (line: string) => s.onProblem?.(`${name}: ${line}`);
  const secret = new SecretFile(s.secret ?? '', s.secretFile, problem('INGEST_SECRET_FILE'));
  const hmacSecret = new SecretFile(s.hmacSecret ?? '', s.hmacSecretFile, problem('INGEST_HMAC_SECRET_FILE'));
  const now = s.now ?? Date.now;
  const recheckMs = s.recheckMs ?? defaults.ingestSecretRecheckMs;
  let webhook = webhookKeys(secret.value);
  let hmac = hmacKeys(hmacSecret.value);
  let lastRead = now();
  let reading: Promise<boolean> | undefined;

  const readAgain = async (): Promise<boolean> => {
    lastRead = now();
    const [a, b] = await Promise.all([secret.reload(), hmacSecret.reload()]);
    if (a) {
      const bad = webhookSecretsProblem(secret.value);
      if (bad) s.onProblem?.(`INGEST_SECRET_FILE: ${bad}; the secrets read before stay in use`);
      else webhook = webhookKeys(secret.value);
    }
    if (b) hmac = hmacKeys(hmacSecret.value);
    if (a || b) s.onChange?.([secret.value, hmacSecret.value].flatMap((v) => (v ? [v, ...secretList(v)] : [])));
    return a || b;
  };

  return {
    webhook: () => webhook,
    hmac: () => hmac,
    refresh() {
      if (!secret.file && !hmacSecret.file) return Promise.resolve(false);
      if (reading) return reading;
      if (now() - lastRead < recheckMs) return Promise.resolve(false);
      reading = readAgain().finally(() => (reading = undefined));
      return reading;
    },
  };
}
