import type { Registry } from 'prom-client';
import type { Logger } from '../log/logger.js';
import type { QueueSet } from '../queue/queues.js';
import type { CheckedKind } from '../records/record-kind.js';
import type { RedisConnection as Redis, RedisKeys } from '../redis/connection.js';
import type { SigningKeys } from './signing-keys.js';
import type { Transform } from '../feed/transform.js';

/** The receiver's limits; each defaults to its entry in config/defaults.ts. */
export interface ReceiverLimits {
  /** Largest body, in bytes (INGEST_MAX_BODY_BYTES). Default 8 MiB. */
  maxBodyBytes: number;
  /** Pushes one sender address may make a second (INGEST_RATE_PER_SECOND). Default 2 000. */
  ratePerSecond: number;
  /** Jobs waiting in a stream past which its pushes are answered 503 (INGEST_MAX_BACKLOG). Default 200 000. */
  maxBacklog: number;
  /** Largest record (MAX_RECORD_BYTES): a larger one is queued to fail alone. Default 4 MiB. */
  maxRecordBytes: number;
  /** How far webhook-timestamp may be from now, in seconds, either way. Default 300. */
  toleranceSeconds: number;
  /** How long a delivery id is remembered, in seconds. Default a day. */
  seenSeconds: number;
  /** Longest wait for Redis to store a push before answering 503, in ms. Default 5 000. */
  storeTimeoutMs: number;
  /** Retry-After of a 503, in seconds. Default 5. */
  retryAfterSeconds: number;
  /** How long a stream's backlog count is reused, in ms. Default 1 000. */
  backlogCacheMs: number;
  /** How long in-flight requests get to finish at close before their connections are cut, in ms. Default 10 000. */
  closeGraceMs: number;
}

/** What `startReceiver` (receiver.ts) takes. */
export interface ReceiverOptions {
  /** A connection to Redis (left open by close). */
  redis: Redis;
  /** The record queues of the streams (the producers' and importers' QueueSet). */
  queues: Pick<QueueSet, 'get'>;
  /** The kinds of job of the composition root: a push to a stream none of them has is answered 404. */
  kinds: readonly CheckedKind[];
  /** Each stream's transform (TRANSFORMS), by stream: pushes to it are upstream payloads that it turns into records. */
  transforms?: ReadonlyMap<string, Transform>;
  /** The program's keys (redisKeys of QUEUE_PREFIX): where the delivery ids seen are marked. */
  keys: Pick<RedisKeys, 'ingestSeen'>;
  /** The secrets pushes are signed with (signing-keys.ts). */
  signing: SigningKeys;
  /** Address to bind. Default 127.0.0.1 (INGEST_HOST; a TLS proxy in front). */
  host?: string;
  /** Port; 0 picks a free one. */
  port: number;
  limits?: Partial<ReceiverLimits>;
  logger: Logger;
  /** The worker's /metrics registry, when there is one: deliveries by stream and answer are counted in it. */
  registry?: Registry;
  /** The clock (tests). Default Date.now. */
  now?: () => number;
}

/** One account a receiver of many serves (ACCOUNTS_FILE): its own queues and keys (its prefix), secrets and transforms. */
export interface ReceiverAccount {
  /** The account's name: `POST /ingest/{name}/{stream}`. */
  name: string;
  /** The record queues of the streams under the account's prefix. */
  queues: Pick<QueueSet, 'get'>;
  /** The account's keys (redisKeys of its prefix): where its delivery ids seen are marked. */
  keys: Pick<RedisKeys, 'ingestSeen'>;
  /** The account's own secrets: a push to its path is checked with these, and with no other account's. */
  signing: SigningKeys;
  /** The account's transforms (its TRANSFORMS), by stream. */
  transforms?: ReadonlyMap<string, Transform>;
  /** The account's MAX_RECORD_BYTES, over limits.maxRecordBytes. */
  maxRecordBytes?: number;
  /** Where the account's lines go (a child naming the account); default the receiver's logger. */
  logger?: Logger;
}

/** What `startAccountsReceiver` (receiver.ts) takes: the deployment's settings, and the accounts. */
export interface AccountsReceiverOptions extends Omit<ReceiverOptions, 'queues' | 'keys' | 'signing' | 'transforms'> {
  /**
   * The accounts served, at least one. Each takes `POST /ingest/{account}/{stream}`; `POST /ingest/{stream}` is the
   * only account's when there is one, and answered 404 naming the other form when there are several.
   */
  accounts: readonly ReceiverAccount[];
  /** Metrics carry an `account` label (the accounts of ACCOUNTS_FILE). Default false: today's labels. */
  labelAccounts?: boolean;
  /**
   * Asked before each request is routed: looks at where the accounts come from (ACCOUNTS_FILE, when due) and calls the
   * receiver's `serve` when they changed. Default: the accounts never change.
   */
  refreshAccounts?(): Promise<void>;
}
