import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

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
  constructor(readonly key: string, waitedMs: number) {
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

const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs fn while holding a Redis lock (SET NX PX, renewed, released by token), shared by every process. */
export async function withRedisLock<T>(
  redis: Redis,
  key: string,
  fn: (lock: HeldLock) => Promise<T>,
  opts: RedisLockOptions = {},
): Promise<T> {
  const ttlMs = opts.ttlMs ?? 15_000;
  const waitMs = opts.waitMs ?? 60_000;
  const pollMs = opts.pollMs ?? 50;
  const token = randomBytes(12).toString('hex');
  const started = Date.now();
  while ((await redis.set(key, token, 'PX', ttlMs, 'NX')) !== 'OK') {
    if (Date.now() - started >= waitMs) throw new LockTimeoutError(key, Date.now() - started);
    await sleep(pollMs);
  }
  let lost = false;
  const timer = setInterval(() => {
    redis
      .eval(RENEW, 1, key, token, ttlMs)
      .then((r) => {
        if (r !== 1) lost = true;
      })
      .catch(() => undefined); // a failed renewal is retried at the next tick; expiry is the safety net
  }, Math.max(10, Math.floor(ttlMs / 3)));
  timer.unref();
  try {
    return await fn({
      assertHeld() {
        if (lost) throw new LockLostError(key);
      },
    });
  } finally {
    clearInterval(timer);
    await redis.eval(RELEASE, 1, key, token).catch(() => undefined);
  }
}
