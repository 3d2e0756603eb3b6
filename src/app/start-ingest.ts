import { workMarkOf } from '../queue/dispatch/work-mark.js';
import type { Registry } from 'prom-client';
import { defaults } from '../../config/defaults.js';
import { ConfigError, secretsOf } from '../../config/read-config.js';
import { startAccountsReceiver, type Receiver, type ReceiverAccount } from '../ingest/receiver.js';
import { signingKeys } from '../ingest/signing-keys.js';
import { addSecrets, type Logger } from '../log/logger.js';
import { createQueues } from '../queue/queues.js';
import type { CheckedKind } from '../records/record-kind.js';
import { loadTransforms, transformSettingsOf, type TransformKind } from '../feed/load-transforms.js';
import { storeOf } from './feed-sources.js';
import { redisKeys, type RedisConnection as Redis } from '../redis/connection.js';
import type { AccountsChange, AccountsWatch } from './accounts-watch.js';
import { accountLogger, ingestAccountName, servedAs, warnSharedSecrets, type IngestAccount } from './ingest-accounts.js';
import { accountsFields } from '../log/name-list.js';

export { ingestAccountName, type IngestAccount };

/** What the receiver says after a problem of ACCOUNTS_FILE, or of an account in it it cannot serve. */
export const receiverKeeps = 'ACCOUNTS_FILE changed but cannot be used: the receiver serves the accounts it had';

export interface StartIngestOptions {
  redis: Redis;
  /** The kinds of job the composition root hands in (their built-in transforms too). */
  kinds: readonly (CheckedKind & TransformKind)[];
  logger: Logger;
  registry?: Registry;
  /** Over INGEST_HOST and INGEST_PORT (the `receive` command's --host, --port). */
  host?: string;
  port: number;
  /**
   * ACCOUNTS_FILE followed (src/app/accounts-watch.ts), from the accounts given: an account added is served, one removed
   * is answered 404. Besides the watch's own looks, the file is looked at before a push is routed, at most once per
   * `lookEveryMs` (default defaults.ingestSecretRecheckMs, a second), so an account just added is served at once.
   */
  follow?: { watch: AccountsWatch; lookEveryMs?: number };
}

/** An account's secrets (read again from their files on a rotation), queues, keys and transforms, as the receiver takes them. */
async function receiverAccount(
  a: IngestAccount,
  o: StartIngestOptions,
  logger: Logger,
  opened: Array<{ close(): Promise<void> }>,
): Promise<ReceiverAccount> {
  const { config } = a;
  const transforms =
    a.transforms ?? (await loadTransforms(transformSettingsOf(config.transforms ?? [], o.kinds, storeOf(config)), o.kinds));
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
      mark: workMarkOf(o.redis, config),
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

/** The accounts served now, by name: what of their configuration the receiver uses (hashed), and what it was given. */
type Served = Map<string, { as: string; account: ReceiverAccount }>;

/** The accounts of `list` as served: one whose configuration the receiver uses is unchanged keeps what `served` gave it. */
async function buildServed(
  list: readonly IngestAccount[],
  served: Served,
  o: StartIngestOptions,
  opened: Array<{ close(): Promise<void> }>,
): Promise<Served> {
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
}

/** As at start (`receive`): an account without a push secret is not taken (it would refuse every push anyway). */
function refuseUnsigned(list: readonly IngestAccount[]): void {
  const unsigned = list.filter(({ config }) => !config.ingest.secret && !config.ingest.hmacSecret);
  if (unsigned.length > 0)
    throw new ConfigError(
      unsigned.map(({ config }) => `account "${ingestAccountName(config)}": INGEST_SECRET: is required to receive pushes`),
    );
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
  let served: Served = new Map();
  /** Closing: a change of the file taken later is dropped. */
  let closed = false;
  const build = (list: readonly IngestAccount[]) => buildServed(list, served, o, opened);
  try {
    served = await build(accounts);
    let look: (() => Promise<void>) | undefined;
    let lookedAt = Date.now();
    const lookEveryMs = o.follow?.lookEveryMs ?? defaults.ingestSecretRecheckMs;
    const refresh = () => {
      if (!look || Date.now() - lookedAt < lookEveryMs) return Promise.resolve();
      lookedAt = Date.now();
      return look();
    };
    const receiver = await startAccountsReceiver({
      redis: o.redis,
      kinds: o.kinds,
      accounts: [...served.values()].map((x) => x.account),
      ...(o.follow ? { refreshAccounts: refresh } : {}),
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
    /** A change of the file, taken: a ConfigError keeps the accounts served (the watch logs it). */
    const apply = async (change: AccountsChange) => {
      if (closed) return;
      const list: IngestAccount[] = change.accounts.map((a) => ({ config: a.config }));
      refuseUnsigned(list);
      const next = await build(list);
      receiver.serve([...next.values()].map((x) => x.account));
      served = next;
      o.logger.info(
        { ...accountsFields([...next.keys()]), added: change.added.map((a) => a.name), removed: change.removed.map((a) => a.name) },
        'ACCOUNTS_FILE read again: the receiver serves its accounts now (one removed is answered 404)',
      );
    };
    // Subscribed once the receiver serves: a change read since the accounts given is taken at once.
    if (o.follow) look = o.follow.watch.subscribe(apply, receiverKeeps).look;
    return {
      port: receiver.port,
      url: receiver.url,
      close: async () => {
        closed = true;
        await receiver.close();
        await closeOpened();
      },
    };
  } catch (err) {
    await closeOpened();
    throw err;
  }
}
