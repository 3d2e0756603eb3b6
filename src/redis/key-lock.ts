import { randomBytes } from 'node:crypto';
import type { RedisConnection as Redis } from './connection.js';

const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

export interface KeyLock {
  key: string;
  /** False once a renewal found the lock gone or taken (the holder outlived its TTL). */
  held(): boolean;
  release(): Promise<void>;
}

/**
 * Takes a Redis lock without waiting (SET NX PX with a random token), renewed every third of its TTL
 * until released. Undefined when another holder has it. A crashed holder's lock expires after ttlMs.
 */
export async function tryLock(redis: Redis, key: string, ttlMs: number): Promise<KeyLock | undefined> {
  const token = randomBytes(12).toString('hex');
  if ((await redis.set(key, token, 'PX', ttlMs, 'NX')) !== 'OK') return undefined;
  let held = true;
  const timer = setInterval(
    () => {
      redis
        .eval(RENEW, 1, key, token, ttlMs)
        .then((r) => {
          if (r !== 1) held = false;
        })
        // A failed renewal is tried again at the next tick; expiry is the safety net.
        .catch(() => undefined);
    },
    Math.max(10, Math.floor(ttlMs / 3)),
  );
  timer.unref();
  return {
    key,
    held: () => held,
    async release() {
      clearInterval(timer);
      if (!held) return;
      held = false;
      await redis.eval(RELEASE, 1, key, token).catch(() => undefined);
    },
  };
}

/** Takes the lock, trying every pollMs for up to waitMs; undefined when it stayed taken. */
export async function waitForLock(redis: Redis, key: string, ttlMs: number, waitMs: number, pollMs = 100): Promise<KeyLock | undefined> {
  const until = Date.now() + waitMs;
  for (;;) {
    const lock = await tryLock(redis, key, ttlMs);
    if (lock || Date.now() >= until) return lock;
    await new Promise((r) => setTimeout(r, Math.min(pollMs, Math.max(1, until - Date.now()))));
  }
}
