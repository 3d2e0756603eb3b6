import type { Registry } from 'prom-client';
import { createHash } from 'node:crypto';
import { accountsFileStamp, defaultAccount } from '../../config/accounts.js';
import { defaults } from '../../config/defaults.js';
import { ConfigError, secretsOf, type Config } from '../../config/read-config.js';
import { messageOf } from '../errors/message-of.js';
import { secretList } from '../../config/webhook-secrets.js';
import { startAccountsReceiver, type AccountsReceiver, type Receiver, type ReceiverAccount } from '../ingest/receiver.js';
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

/** Where the accounts come from when they can change while the receiver runs: ACCOUNTS_FILE, read again when it changed. */
export interface IngestReload {
  /** The file whose change (its size and time) is looked for, at most once per `recheckMs`, before a push is routed. */
  file: string;
  /** The accounts as the file has them now; throws a ConfigError when it is wrong (the accounts served stay). */
  read(): readonly IngestAccount[];
  /** Default defaults.ingestSecretRecheckMs (a second). */
  recheckMs?: number;
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
  /** ACCOUNTS_FILE read again when it changes: an account added is served, one removed is answered 404. */
  reload?: IngestReload;
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

/**
 * What of an account's configuration the receiver uses (its secrets, their files, its prefix, its transforms, its
 * record cap), hashed: an account read again with the same one is served as it was (its counts kept).
 */
function servedAs(config: Config): string {
  const { secret, hmacSecret } = config.ingest;
  const files = [config.secretFiles.INGEST_SECRET, config.secretFiles.INGEST_HMAC_SECRET];
  const used = { secret, hmacSecret, files, prefix: config.redis.prefix, jobs: config.jobs, transforms: config.transforms ?? [] };
  return createHash('sha256')
    .update(JSON.stringify([used, config.limits.maxRecordBytes]))
    .digest('hex');
}

/** The account's lines: the receiver's logger, or a child naming the account when that logger names none (or another). */
function accountLogger(logger: Logger, config: Config): Logger {
  if (config.accountName === undefined) return logger;
  const named = (logger.bindings() as { account?: string }).account;
  return named === config.accountName ? logger : logger.child({ account: config.accountName });
}

/**
 * Looks at ACCOUNTS_FILE at most once per recheckMs and, when it changed, reads it and hands its accounts to `apply`;
 * a file that cannot be read or is wrong is logged (one line per problem, never a value) and the accounts served stay.
 * Never throws: a push is routed with the accounts there are.
 */
function accountsReloader(
  reload: IngestReload,
  logger: Logger,
  apply: (accounts: readonly IngestAccount[]) => Promise<void>,
): () => Promise<void> {
  const recheckMs = reload.recheckMs ?? defaults.ingestSecretRecheckMs;
  let stamp = accountsFileStamp(reload.file);
  let lastLook = Date.now();
  let looking: Promise<void> | undefined;
  const readAgain = async (now: string | undefined) => {
    stamp = now;
    try {
      await apply(reload.read());
    } catch (err) {
      const problems = err instanceof ConfigError ? err.problems : [messageOf(err)];
      logger.warn({ problems }, 'ACCOUNTS_FILE changed but cannot be used: the receiver serves the accounts it had');
    }
  };
  return () => {
    if (looking) return looking;
    if (Date.now() - lastLook < recheckMs) return Promise.resolve();
    lastLook = Date.now();
    const now = accountsFileStamp(reload.file);
    if (now === stamp) return Promise.resolve();
    looking = readAgain(now).finally(() => (looking = undefined));
    return looking;
  };
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
  // Queues opened here, those of accounts removed since too (a push in flight may still use them), closed at the end.
  const opened: Array<{ close(): Promise<void> }> = [];
  let closing: Promise<void> | undefined;
  const closeOpened = () => (closing ??= Promise.all(opened.map((q) => q.close())).then(() => undefined));
  /** The accounts served now, by name: what of their configuration the receiver uses (hashed), and what it was given. */
  type Served = Map<string, { as: string; account: ReceiverAccount }>;
  let served: Served = new Map();
  const build = async (list: readonly IngestAccount[]): Promise<Served> => {
    // Every account's secrets are redacted from the lines of every account.
    for (const { config } of list)
      addSecrets(o.logger, secretsOf(config), config.service ? [[config.service.apiKey, config.service.apiSecret]] : []);
    warnSharedSecrets(list, o.logger);
    const next: Served = new Map();
    for (const a of list) {
      const as = servedAs(a.config);
      const before = served.get(ingestAccountName(a.config));
      const account = before?.as === as ? before.account : await receiverAccount(a, o, accountLogger(o.logger, a.config), opened);
      next.set(account.name, { as, account });
    }
    return next;
  };
  try {
    served = await build(accounts);
    let receiver: AccountsReceiver | undefined;
    const apply = async (list: readonly IngestAccount[]) => {
      if (list.length === 0) throw new ConfigError(['ACCOUNTS_FILE: names no account']);
      const next = await build(list);
      receiver?.serve([...next.values()].map((x) => x.account));
      const added = [...next.keys()].filter((n) => !served.has(n));
      const removed = [...served.keys()].filter((n) => !next.has(n));
      served = next;
      o.logger.info(
        { accounts: [...next.keys()], added, removed },
        'ACCOUNTS_FILE read again: the receiver serves its accounts now (one removed is answered 404)',
      );
    };
    receiver = await startAccountsReceiver({
      redis: o.redis,
      kinds: o.kinds,
      accounts: [...served.values()].map((x) => x.account),
      ...(o.reload ? { refreshAccounts: accountsReloader(o.reload, o.logger, apply) } : {}),
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
    const running = receiver;
    return {
      port: running.port,
      url: running.url,
      close: async () => {
        await running.close();
        await closeOpened();
      },
    };
  } catch (err) {
    await closeOpened();
    throw err;
  }
}
