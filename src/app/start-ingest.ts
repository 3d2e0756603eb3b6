import type { Registry } from 'prom-client';
import { defaultAccount } from '../../config/accounts.js';
import { secretsOf, type Config } from '../../config/read-config.js';
import { secretList } from '../../config/webhook-secrets.js';
import { startAccountsReceiver, type Receiver, type ReceiverAccount } from '../ingest/receiver.js';
import { signingKeys } from '../ingest/signing-keys.js';
import { addSecrets, type Logger } from '../log/logger.js';
import { createQueues, type QueueSet } from '../queue/queues.js';
import type { CheckedKind } from '../records/record-kind.js';
import { loadTransforms, type TransformKind } from '../feed/load-transforms.js';
import type { Transform } from '../feed/transform.js';
import { redisKeys, type RedisConnection as Redis } from '../redis/connection.js';

/** One account the receiver serves: its configuration (its prefix, secrets, transforms), and what the caller has open. */
export interface IngestAccount {
  config: Config;
  /** The account's record queues when the caller has them open (the worker's); default: opened here, closed with the receiver. */
  queues?: Pick<QueueSet, 'get'>;
  /** The account's transforms when the caller has loaded them (`worker` checks TRANSFORMS at start); default: loaded here. */
  transforms?: ReadonlyMap<string, Transform>;
}

export interface StartIngestOptions {
  redis: Redis;
  /** The kinds of job the composition root hands in (their built-in transforms too). */
  kinds: readonly (CheckedKind & TransformKind)[];
  logger: Logger;
  registry?: Registry;
  /** Over INGEST_HOST and INGEST_PORT (the `receive` command's --host, --port). */
  host?: string;
  port: number;
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
function warnSharedSecrets(accounts: readonly IngestAccount[], logger: Logger): void {
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

/** An account's secrets (read again from their files on a rotation), queues, keys and transforms, as the receiver takes them. */
async function receiverAccount(
  a: IngestAccount,
  o: StartIngestOptions,
  logger: Logger,
  opened: Array<{ close(): Promise<void> }>,
): Promise<ReceiverAccount> {
  const { config } = a;
  const transforms = a.transforms ?? (await loadTransforms(config.transforms ?? [], o.kinds));
  const signing = signingKeys({
    secret: config.ingest.secret,
    secretFile: config.secretFiles.INGEST_SECRET,
    hmacSecret: config.ingest.hmacSecret,
    hmacSecretFile: config.secretFiles.INGEST_HMAC_SECRET,
    onChange: (values) => {
      // Learned before anything could log them.
      addSecrets(o.logger, values);
      logger.info('push secrets read again from their file: they changed, and pushes signed with the new ones are taken');
    },
    onProblem: (line) => logger.warn(line),
  });
  let queues = a.queues;
  if (!queues) {
    const own = createQueues({
      connection: o.redis,
      prefix: config.redis.prefix,
      jobs: config.jobs,
      streams: o.kinds.map((k) => k.stream),
    });
    opened.push(own);
    queues = own;
  }
  return {
    name: ingestAccountName(config),
    queues,
    keys: redisKeys(config.redis.prefix),
    signing,
    transforms,
    maxRecordBytes: config.limits.maxRecordBytes,
    logger,
  };
}

/**
 * The push receiver of the accounts (one process, one port): each account's secrets (read again from their files on
 * a rotation), its prefix and the streams' transforms (its TRANSFORMS; a wrong one stops the start with a ConfigError,
 * one line each). The host, port and limits are the deployment's (the same in every account's configuration).
 * Queues the caller did not hand in are opened here and closed with the receiver.
 */
export async function startIngest(accounts: readonly IngestAccount[], o: StartIngestOptions): Promise<Receiver> {
  const first = accounts[0];
  if (!first) throw new Error('startIngest: no account to serve');
  const { ingest } = first.config;
  const several = accounts.length > 1;
  // Every account's secrets are redacted from the lines of every account.
  for (const { config } of accounts)
    addSecrets(o.logger, secretsOf(config), config.service ? [[config.service.apiKey, config.service.apiSecret]] : []);
  warnSharedSecrets(accounts, o.logger);
  const opened: Array<{ close(): Promise<void> }> = [];
  let closing: Promise<void> | undefined;
  const closeOpened = () => (closing ??= Promise.all(opened.map((q) => q.close())).then(() => undefined));
  try {
    const served = await Promise.all(
      accounts.map((a) => receiverAccount(a, o, several ? o.logger.child({ account: ingestAccountName(a.config) }) : o.logger, opened)),
    );
    const receiver = await startAccountsReceiver({
      redis: o.redis,
      kinds: o.kinds,
      accounts: served,
      labelAccounts: accounts.some((a) => a.config.accountName !== undefined),
      host: o.host ?? ingest.host,
      port: o.port,
      limits: {
        maxBodyBytes: ingest.maxBodyBytes,
        ratePerSecond: ingest.ratePerSecond,
        maxBacklog: ingest.maxBacklog,
        maxRecordBytes: first.config.limits.maxRecordBytes,
      },
      logger: o.logger,
      registry: o.registry,
    });
    return {
      ...receiver,
      close: async () => {
        await receiver.close();
        await closeOpened();
      },
    };
  } catch (err) {
    await closeOpened();
    throw err;
  }
}
