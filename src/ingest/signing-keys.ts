import { stat } from 'node:fs/promises';
import { defaults } from '../../config/defaults.js';
import { SecretFile } from '../secrets/secret-file.js';
import { hmacKeys, secretList, webhookKeys, webhookSecretsProblem } from '../../config/webhook-secrets.js';

/** The keys a push may be signed with, by scheme; what the receiver asks for each delivery. */
export interface SigningKeys {
  /** Standard Webhooks keys (INGEST_SECRET), decoded; several during a rotation. */
  webhook(): readonly Buffer[];
  /** Store-webhook keys (INGEST_HMAC_SECRET); none when that scheme is off. */
  hmac(): readonly Buffer[];
  /**
   * Reads the secrets' files again when they changed on disk (looked at most once per `recheckMs`), or, with `force`
   * (a signature that matched no key), whether or not they seem to have. Answers whether the keys changed.
   */
  refresh(o?: { force?: boolean }): Promise<boolean>;
}

export interface SigningKeySources {
  /** INGEST_SECRET as read at start (whsec_..., comma-separated), and its file (INGEST_SECRET_FILE) when given so. */
  secret?: string;
  secretFile?: string;
  /** INGEST_HMAC_SECRET and INGEST_HMAC_SECRET_FILE. */
  hmacSecret?: string;
  hmacSecretFile?: string;
  /** A file read again holds new secrets (the logger must learn them): every value, each item of a list too. */
  onChange?(values: string[]): void;
  /** A file could not be used: one line naming it, never a value. */
  onProblem?(line: string): void;
  /** Least time between two looks at the files, in ms. Default defaults.ingestSecretRecheckMs. */
  recheckMs?: number;
  now?: () => number;
}

/** Keys that never change (tests, benches). */
export function fixedSigningKeys(webhook: readonly Buffer[], hmac: readonly Buffer[] = []): SigningKeys {
  return { webhook: () => webhook, hmac: () => hmac, refresh: async () => false };
}

/** What tells that a file changed: its time of change, size and inode (a Kubernetes secret is swapped by a link). */
async function stamp(file: string | undefined): Promise<string> {
  if (!file) return '';
  const s = await stat(file).catch(() => undefined);
  return s ? `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}` : 'missing';
}

/** The signing keys of the configuration, read again from their files (when given so) once they change. */
export function signingKeys(s: SigningKeySources): SigningKeys {
  const problem = (name: string) => (line: string) => s.onProblem?.(`${name}: ${line}`);
  const secret = new SecretFile(s.secret ?? '', s.secretFile, problem('INGEST_SECRET_FILE'));
  const hmacSecret = new SecretFile(s.hmacSecret ?? '', s.hmacSecretFile, problem('INGEST_HMAC_SECRET_FILE'));
  const now = s.now ?? Date.now;
  const recheckMs = s.recheckMs ?? defaults.ingestSecretRecheckMs;
  let webhook = webhookKeys(secret.value);
  let hmac = hmacKeys(hmacSecret.value);
  let lastLook = -Infinity;
  let seen: string | undefined;
  let looking: Promise<boolean> | undefined;

  const readAgain = async (): Promise<boolean> => {
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
  const look = async (force: boolean): Promise<boolean> => {
    lastLook = now();
    const stamps = (await stamp(secret.file)) + '|' + (await stamp(hmacSecret.file));
    const changed = seen !== undefined && stamps !== seen;
    seen = stamps;
    return changed || force ? readAgain() : false;
  };

  return {
    webhook: () => webhook,
    hmac: () => hmac,
    refresh(o = {}) {
      if (!secret.file && !hmacSecret.file) return Promise.resolve(false);
      if (looking) return looking;
      if (now() - lastLook < recheckMs) return Promise.resolve(false);
      looking = look(o.force === true).finally(() => (looking = undefined));
      return looking;
    },
  };
}
