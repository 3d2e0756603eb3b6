import { randomBytes } from 'node:crypto';
import { defaults } from '../../config/defaults.js';
import type { RedisConnection as Redis } from './connection.js';
import { redisScript, runScript } from './scripts.js';

/**
 * The program's one Redis lock: SET NX PX with a random token, renewed every third of its life while held, released
 * only by its holder. A crashed holder's lock expires after its life. The feed's pull and the stock kind's locations
 * and snapshot read take it; a job's record is held by its execution's lease instead (src/queue/lease/).
 */

const RENEW = redisScript(
  'lockRenew',
  `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`,
);
const RELEASE = redisScript(
  'lockRelease',
  `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`,
);

export interface RedisLockOptions {
  /** Life of the lock in ms; renewed every ttlMs / 3 while held. Default 15 000. */
  ttlMs?: number;
  /** How long to wait for the lock before giving up, in ms. Default 60 000. */
  waitMs?: number;
  /** Pause between two tries while waiting, in ms. Default 50. */
  pollMs?: number;
}

/** The lock was not free within waitMs; worth a retry later. */
export class LockTimeoutError extends Error {
  readonly code = 'LOCK_TIMEOUT';
  constructor(
    readonly key: string,
    waitedMs: number,
  ) {
    super(`lock ${key} still held by another job after ${waitedMs} ms; will retry`);
    this.name = 'LockTimeoutError';
  }
}

/** The lock expired under its holder (process frozen longer than its life); the holder must stop writing. */
export class LockLostError extends Error {
  readonly code = 'LOCK_LOST';
  constructor(readonly key: string) {
    super(`lock ${key} was lost while held; stopping before the next write`);
    this.name = 'LockLostError';
  }
}

export interface HeldLock {
  /** Throws LockLostError when the lock is no longer ours. Call before every write it protects. */
  assertHeld(): void;
}

/** Locks held, that Redis can check a write against (src/redis/fenced-write.ts): each one's key and token. */
export interface FencingLock extends HeldLock {
  readonly tokens: ReadonlyArray<readonly [key: string, token: string]>;
}

/** A lock taken by `takeLock`. */
export interface RedisLock extends HeldLock {
  key: string;
  /** Its value in Redis while it is ours. */
  token: string;
  /** False once a renewal found the lock gone or taken (the holder outlived its life). assertHeld also counts time. */
  held(): boolean;
  release(): Promise<void>;
}

/**
 * Takes the lock at `key` for `ttlMs`, trying every `pollMs` for up to `waitMs` (0: one try, no wait); undefined when
 * it stayed taken.
 */
export async function takeLock(
  redis: Redis,
  key: string,
  opts: { ttlMs: number; waitMs?: number; pollMs?: number },
): Promise<RedisLock | undefined> {
  const until = Date.now() + (opts.waitMs ?? 0);
  for (;;) {
    const lock = await tryOnce(redis, key, opts.ttlMs);
    if (lock || Date.now() >= until) return lock;
    await new Promise((r) => setTimeout(r, Math.min(opts.pollMs ?? 100, Math.max(1, until - Date.now()))));
  }
}

async function tryOnce(redis: Redis, key: string, ttlMs: number): Promise<RedisLock | undefined> {
  const token = randomBytes(12).toString('hex');
  // When the lock was last known ours: the take, and each renewal, confirm it as of when they were sent, not when
  // their answer was read. Past its life since then (a process paused longer than that: a frozen VM, SIGSTOP, even
  // between the take and its answer), it may be another's even before a renewal says so.
  let confirmedAt = Date.now();
  if ((await redis.set(key, token, 'PX', ttlMs, 'NX')) !== 'OK') return undefined;
  let held = true;
  const renew = () => {
    const sentAt = Date.now();
    return (
      runScript(redis, RENEW, [1, key, token, ttlMs])
        .then((r) => {
          if (r !== 1) held = false;
          else confirmedAt = sentAt;
        })
        // A failed renewal is tried again at the next tick; expiry is the safety net.
        .catch(() => undefined)
    );
  };
  const timer = setInterval(() => void renew(), Math.max(10, Math.floor(ttlMs / 3)));
  timer.unref();
  return {
    key,
    token,
    held: () => held,
    assertHeld() {
      if (!held || Date.now() - confirmedAt >= ttlMs) throw new LockLostError(key);
    },
    async release() {
      clearInterval(timer);
      if (!held) return;
      held = false;
      await runScript(redis, RELEASE, [1, key, token]).catch(() => undefined);
    },
  };
}

/** Runs fn while holding the lock at `key`, waiting for it up to `waitMs`; LockTimeoutError when it stayed taken. */
export async function withRedisLock<T>(
  redis: Redis,
  key: string,
  fn: (lock: FencingLock) => Promise<T>,
  opts: RedisLockOptions = {},
): Promise<T> {
  const started = Date.now();
  const lock = await takeLock(redis, key, {
    ttlMs: opts.ttlMs ?? defaults.stockLocationLockMs,
    waitMs: opts.waitMs ?? defaults.lockWaitMs,
    pollMs: opts.pollMs ?? defaults.lockPollMs,
  });
  if (!lock) throw new LockTimeoutError(key, Date.now() - started);
  try {
    return await fn({ assertHeld: () => lock.assertHeld(), tokens: [[lock.key, lock.token]] });
  } finally {
    await lock.release();
  }
}

/**
 * Runs fn while holding several Redis locks, taken one by one in sorted key order so that two callers needing
 * the same pair never wait on each other in a circle. The HeldLock checks them all.
 */
export async function withRedisLocks<T>(
  redis: Redis,
  keys: string[],
  fn: (lock: FencingLock) => Promise<T>,
  opts: RedisLockOptions = {},
): Promise<T> {
  const sorted = [...new Set(keys)].sort();
  const nest = (i: number, held: FencingLock[]): Promise<T> =>
    i === sorted.length
      ? fn({ assertHeld: () => held.forEach((h) => h.assertHeld()), tokens: held.flatMap((h) => h.tokens) })
      : withRedisLock(redis, sorted[i]!, (lock) => nest(i + 1, [...held, lock]), opts);
  return nest(0, []);
}
