import { createHash } from 'node:crypto';
import { defaultAccount } from '../../config/accounts.js';
import type { Config } from '../../config/read-config.js';
import { secretList } from '../../config/webhook-secrets.js';
import type { Transform } from '../feed/transform.js';
import type { Logger } from '../log/logger.js';
import type { QueueSet } from '../queue/queues.js';

/** One account the receiver serves: its configuration (its prefix, secrets, transforms), and what the caller has open. */
export interface IngestAccount {
  config: Config;
  /** The account's record queues when the caller has them open (the worker's); default: opened here, closed with the receiver. */
  queues?: Pick<QueueSet, 'get'>;
  /** The account's transforms when the caller has loaded them (`worker` checks TRANSFORMS at start); default: loaded here. */
  transforms?: ReadonlyMap<string, Transform>;
}

/** The account's name in the receiver's paths: its name in ACCOUNTS_FILE, or `default` (the environment's). */
export function ingestAccountName(config: Config): string {
  return config.accountName ?? defaultAccount;
}

/** The secrets an account checks pushes with (each of a rotation list), to tell accounts that share one. */
function pushSecrets(config: Config): string[] {
  return [config.ingest.secret, config.ingest.hmacSecret].flatMap((v) => (v ? secretList(v) : []));
}

/**
 * Names the accounts that check pushes with a secret another account has too (one set in the environment and not by
 * the accounts, say): a delivery signed for one of them is taken on the other's path. A warning, never a value.
 */
export function warnSharedSecrets(accounts: readonly IngestAccount[], logger: Logger): void {
  const holder = new Map<string, string>();
  const pairs = new Set<string>();
  for (const { config } of accounts) {
    const name = ingestAccountName(config);
    for (const secret of new Set(pushSecrets(config))) {
      const other = holder.get(secret);
      if (other === undefined) holder.set(secret, name);
      else if (other !== name) pairs.add(`${other} and ${name}`);
    }
  }
  for (const pair of pairs)
    logger.warn(
      `accounts ${pair} check pushes with the same secret (INGEST_SECRET or INGEST_HMAC_SECRET): a delivery signed for ` +
        `one is taken on the other's path; give each account its own in ACCOUNTS_FILE (docs/push.md, "Many accounts")`,
    );
}

/**
 * What of an account's configuration the receiver uses (its secrets, their files, its prefix, its transforms, its
 * record cap), hashed: an account read again with the same one is served as it was (its counts kept).
 */
export function servedAs(config: Config): string {
  const { secret, hmacSecret } = config.ingest;
  const files = [config.secretFiles.INGEST_SECRET, config.secretFiles.INGEST_HMAC_SECRET];
  const used = { secret, hmacSecret, files, prefix: config.redis.prefix, jobs: config.jobs, transforms: config.transforms ?? [] };
  return createHash('sha256')
    .update(JSON.stringify([used, config.limits.maxRecordBytes]))
    .digest('hex');
}

/** The account's lines: the receiver's logger, or a child naming the account when that logger names none (or another). */
export function accountLogger(logger: Logger, config: Config): Logger {
  if (config.accountName === undefined) return logger;
  const named = (logger.bindings() as { account?: string }).account;
  return named === config.accountName ? logger : logger.child({ account: config.accountName });
}
