import { defaults } from '../../config/defaults.js';
import type { RedisConnection as Redis } from './connection.js';
import { waitForLock } from './key-lock.js';

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

/** Runs fn while holding a Redis lock (one mechanism for the whole program: src/redis/key-lock.ts). */
export async function withRedisLock<T>(
  redis: Redis,
  key: string,
  fn: (lock: HeldLock) => Promise<T>,
  opts: RedisLockOptions = {},
): Promise<T> {
  const started = Date.now();
  const lock = await waitForLock(
    redis,
    key,
    opts.ttlMs ?? defaults.stockLocationLockMs,
    opts.waitMs ?? defaults.lockWaitMs,
    opts.pollMs ?? defaults.lockPollMs,
  );
  if (!lock) throw new LockTimeoutError(key, Date.now() - started);
  try {
    return await fn({
      assertHeld() {
        if (!lock.held()) throw new LockLostError(key);
      },
    });
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
  fn: (lock: HeldLock) => Promise<T>,
  opts: RedisLockOptions = {},
): Promise<T> {
  const sorted = [...new Set(keys)].sort();
  const nest = (i: number, held: HeldLock[]): Promise<T> =>
    i === sorted.length
      ? fn({ assertHeld: () => held.forEach((h) => h.assertHeld()) })
      : withRedisLock(redis, sorted[i]!, (lock) => nest(i + 1, [...held, lock]), opts);
  return nest(0, []);
}
