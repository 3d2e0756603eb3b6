import { Registry } from 'prom-client';
import type { Config } from '../../../config/read-config.js';
import type { AccountsWatch, WatchedAccount } from '../../app/accounts-watch.js';
import { startIngest } from '../../app/start-ingest.js';
import type { Receiver } from '../../ingest/receiver.js';
import type { Kind } from '../../kinds/kind.js';
import type { Logger } from '../../log/logger.js';
import type { ReadyCheck } from '../../metrics/worker-http.js';
import type { RedisConnection as Redis } from '../../redis/connection.js';
import { listenOrConfigError } from '../listen-setting.js';

/** The push receiver of a `worker` running the accounts of ACCOUNTS_FILE. */
export interface AccountsIngest {
  receiver: Receiver;
  /** Its metrics (labelled by account), for the process's /metrics. */
  registry: Registry;
  /** Its /readyz line: where it takes pushes. */
  readiness: ReadyCheck;
}

export interface AccountsIngestOptions {
  /** The deployment's settings (INGEST_PORT, INGEST_HOST and the limits): the first account's. */
  base: Config;
  /** The accounts read at start, which `watch` follows from. */
  first: readonly WatchedAccount[];
  watch: AccountsWatch;
  redis: Redis;
  kinds: readonly Kind[];
  logger: Logger;
}

/**
 * With INGEST_PORT: the receiver `receive` starts with ACCOUNTS_FILE (`POST /ingest/{account}/{stream}`, each account
 * with its own secrets, prefix and limits), in the worker's process and following the file as its accounts do.
 * Without: undefined.
 */
export async function startAccountsIngest(o: AccountsIngestOptions): Promise<AccountsIngest | undefined> {
  const { port, host } = o.base.ingest;
  if (port === undefined) return undefined;
  const registry = new Registry();
  const receiver = await listenOrConfigError(
    () =>
      startIngest(
        o.first.map((a) => ({ config: a.config })),
        { redis: o.redis, kinds: o.kinds, logger: o.logger, registry, port, follow: { watch: o.watch } },
      ),
    { host, port, portSetting: 'INGEST_PORT', hostSetting: 'INGEST_HOST' },
  );
  const where = `${receiver.url}/ingest/{account}/{stream}`;
  const readiness: ReadyCheck = async () => ({ name: 'ingest', ok: true, detail: `pushes at ${where}` });
  return { receiver, registry, readiness };
}
