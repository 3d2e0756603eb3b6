import { defaults } from '../../config/defaults.js';
import type { RedisConfig } from '../../config/read-config.js';
import type { Logger } from '../log/logger.js';
import { replyCode } from '../errors/reply-code.js';
import { findRedisFailure } from '../redis/errors.js';
import { createRedis, describeRedis, type RedisConnection, type RedisTarget } from '../redis/connection.js';
import { UnreachableError } from '../errors/unreachable-error.js';
import { messageOf } from '../errors/message-of.js';

export interface ConnectRedisOptions {
  /** Give up after this long. Default 3 s. */
  timeoutMs?: number;
  /** Where to say, once connected, that the prefix was put in a hash tag for the cluster (and, while waiting, why). */
  logger?: Logger;
  /**
   * Long-running commands (worker, dashboard): try again for this long, saying so every few seconds, before giving up
   * as a one-shot command does at once. Default 0: one try. A Redis that answers with a refusal that waiting will not
   * change (a wrong password, not a cluster) is not waited for.
   */
  waitMs?: number;
  /** How often the wait is told, ms. Default 5 000. */
  waitLogMs?: number;
  /** Stops the wait (the first SIGTERM): the last try's error is thrown at once. */
  signal?: AbortSignal;
  /** Each error of the connection while it tries (ECONNREFUSED...), as it comes. */
  onError?: (err: unknown) => void;
}

/** Redis's answers that go away by themselves (a restart loading its data, a failover, a cluster moving slots). */
const PASSING = new Set(['LOADING', 'BUSY', 'MASTERDOWN', 'CLUSTERDOWN', 'TRYAGAIN']);

/**
 * connectRedis, tried again for `waitMs` while Redis is away (a restart, a host still booting), with one line every
 * `waitLogMs`: "waiting for Redis at ...: why". Then UnreachableError, as from one try.
 */
export async function connectRedisWaiting(
  target: RedisConfig | RedisTarget | string,
  o: ConnectRedisOptions = {},
): Promise<RedisConnection> {
  const until = Date.now() + (o.waitMs ?? 0);
  if (!o.waitMs) return connectRedis(target, o);
  let toldAt = 0;
  // Told as the connection's errors come (ECONNREFUSED at once), not only when a try times out.
  const tell = (why: unknown) => {
    if (Date.now() - toldAt < (o.waitLogMs ?? defaults.redisWaitLogMs)) return;
    toldAt = Date.now();
    const left = Math.max(0, Math.round((until - Date.now()) / 1000));
    o.logger?.warn(
      { redis: describeRedis(target), why: messageOf(why), secondsLeft: left },
      `waiting for Redis at ${describeRedis(target)}: ${messageOf(why)} (${left} s left of REDIS_START_WAIT_SECONDS)`,
    );
  };
  for (;;) {
    try {
      return await connectRedis(target, { ...o, onError: tell });
    } catch (err) {
      const answered = findRedisFailure((err as { cause?: unknown }).cause);
      const passing = !answered?.replied || PASSING.has(replyCode(answered.error) ?? '');
      if (!(err instanceof UnreachableError) || !passing || Date.now() >= until || o.signal?.aborted) throw err;
      tell(err.cause);
      await new Promise<void>((r) => {
        const done = () => {
          clearTimeout(timer);
          o.signal?.removeEventListener('abort', done);
          r();
        };
        const timer = setTimeout(done, Math.min(1_000, Math.max(0, until - Date.now())));
        o.signal?.addEventListener('abort', done, { once: true });
      });
    }
  }
}

/** Redis's refusals of a write that go away once a person (or a failover) frees it: full, read-only. */
const REFUSED = new Set(['OOM', 'READONLY']);

/**
 * Runs `start` (what a long-running command writes to Redis as it starts: queues' settings, schedules) again while
 * Redis refuses writes (full: OOM; read-only) for up to `waitMs`, with one line every `waitLogMs`; any other error, or
 * the refusal past `waitMs`, is thrown as from one try. `start` must leave nothing open when it throws.
 */
export async function startWhileRedisRefuses<T>(
  start: () => Promise<T>,
  o: {
    waitMs: number;
    logger?: Logger;
    signal?: AbortSignal;
    waitLogMs?: number;
    /** When the wait was last said, shared by starts that wait at once (a process's accounts): one line for them all. */
    told?: { at: number };
  },
): Promise<T> {
  const until = Date.now() + o.waitMs;
  const told = o.told ?? { at: 0 };
  for (;;) {
    try {
      return await start();
    } catch (err) {
      const refused = findRedisFailure(err);
      const code = refused?.replied ? (replyCode(refused.error) ?? '') : '';
      if (!REFUSED.has(code) || Date.now() >= until || o.signal?.aborted) throw err;
      if (Date.now() - told.at >= (o.waitLogMs ?? defaults.redisWaitLogMs)) {
        told.at = Date.now();
        const left = Math.max(0, Math.round((until - Date.now()) / 1000));
        o.logger?.warn(
          { why: refused!.message, secondsLeft: left, hint: refused!.hint },
          `waiting for Redis to take writes: ${refused!.message} (${left} s left of REDIS_START_WAIT_SECONDS)`,
        );
      }
      await new Promise<void>((r) => {
        const done = () => {
          clearTimeout(timer);
          o.signal?.removeEventListener('abort', done);
          r();
        };
        const timer = setTimeout(done, 1_000);
        o.signal?.addEventListener('abort', done, { once: true });
      });
    }
  }
}

/**
 * A Redis connection (to a cluster when the target has cluster nodes) that has answered PING, or
 * UnreachableError after `timeoutMs`. Once up, it reconnects forever as BullMQ expects.
 */
export async function connectRedis(target: RedisConfig | RedisTarget | string, o: ConnectRedisOptions = {}): Promise<RedisConnection> {
  const timeoutMs = o.timeoutMs ?? defaults.redisConnectTimeoutMs;
  const redis = createRedis(target, { lazyConnect: true, connectTimeout: timeoutMs });
  // Keep the socket's own error (ECONNREFUSED...): connect() only says "Connection is closed".
  let lastError: unknown;
  redis.on('error', (err) => {
    lastError = err;
    o.onError?.(err);
  });
  // Through Sentinel, why a sentinel could not name the primary (unreachable, a wrong name or password) says most.
  let sentinelError: unknown;
  redis.on('sentinelError', (err) => {
    sentinelError = err;
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      redis.connect().then(() => redis.ping()),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
  } catch (err) {
    redis.disconnect();
    const cause = lastError ?? sentinelError ?? err;
    // A Redis that answers with an error (not a cluster, a wrong password) is told by its answer.
    const answered = findRedisFailure(cause);
    const hint = answered?.replied ? answered.hint : isUntrusted(cause) ? UNTRUSTED_HINT : unreachableHint(target);
    throw new UnreachableError('Redis', describeRedis(target), hint, sentinelError ?? cause);
  } finally {
    clearTimeout(timer);
  }
  if (o.logger && typeof target !== 'string' && 'prefixGiven' in target && target.prefixGiven) {
    o.logger.info(
      { queuePrefix: target.prefixGiven, prefix: target.prefix },
      `QUEUE_PREFIX ${target.prefixGiven} has no {hash tag}: the program uses ${target.prefix} on the Redis Cluster, ` +
        "so each prefix's keys (and BullMQ's scripts over them) stay in one slot",
    );
  }
  return redis;
}

/** Node's codes for a TLS certificate it does not trust, or that is not the host's. */
const CERT_CODES = new RegExp(
  '^(SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|' +
    'CERT_HAS_EXPIRED|CERT_UNTRUSTED|ERR_TLS_CERT_ALTNAME_INVALID)$',
);
const UNTRUSTED_HINT =
  "Redis's TLS certificate is not trusted: give the CA that signed it in REDIS_TLS_CA_FILE (or Node's NODE_EXTRA_CA_CERTS), " +
  'and check that the host name is one the certificate names.';

function isUntrusted(err: unknown): boolean {
  return CERT_CODES.test(String((err as { code?: unknown } | undefined)?.code ?? ''));
}

function unreachableHint(target: RedisTarget | string): string {
  if (typeof target !== 'string' && target.sentinel) {
    return (
      'Start the sentinels, or fix REDIS_SENTINELS (host:port,...), REDIS_SENTINEL_NAME (the name they monitor the primary under) ' +
      'or REDIS_SENTINEL_PASSWORD; ask one with `redis-cli -p 26379 SENTINEL get-master-addr-by-name <name>`.'
    );
  }
  if (typeof target !== 'string' && target.clusterNodes?.length) {
    return (
      'Start the cluster or fix REDIS_CLUSTER_NODES (seed nodes of a Redis Cluster, host:port,...); ' +
      'check it with `redis-cli --cluster check host:port`.'
    );
  }
  return 'Start Redis or point REDIS_URL at one (e.g. redis://127.0.0.1:6379).';
}
