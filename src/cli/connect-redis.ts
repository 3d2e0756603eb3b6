import type { Redis } from 'ioredis';
import { createRedis } from '../redis.js';
import { UnreachableError } from './exit-codes.js';

/** The URL without its password, fit for a message. */
export function safeRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'REDIS_URL';
  }
}

/**
 * A Redis connection that has answered PING, or UnreachableError after `timeoutMs`.
 * Once up, it reconnects forever as BullMQ expects.
 */
export async function connectRedis(url: string, timeoutMs = 3000): Promise<Redis> {
  const redis = createRedis(url, { lazyConnect: true, connectTimeout: timeoutMs });
  // Keep the socket's own error (ECONNREFUSED...): connect() only says "Connection is closed".
  let lastError: unknown;
  redis.on('error', (err) => {
    lastError = err;
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      redis.connect().then(() => redis.ping()),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return redis;
  } catch (err) {
    redis.disconnect();
    throw new UnreachableError('Redis', safeRedisUrl(url), 'Start Redis or point REDIS_URL at one (e.g. redis://127.0.0.1:6379).', lastError ?? err);
  } finally {
    clearTimeout(timer);
  }
}
