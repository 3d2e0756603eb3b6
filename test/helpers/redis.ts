import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { createRedis, deleteKeysUnder } from '../../src/redis.js';
import type { Redis } from 'ioredis';

/** The real Redis the suite runs against. */
export function redisUrl(): string {
  return inject('redisUrl');
}

/** A fresh key prefix per test, so tests never see each other's queues or keys. */
export function uniquePrefix(name = 't'): string {
  return `test-${name}-${randomBytes(4).toString('hex')}`;
}

export function connect(): Redis {
  return createRedis(redisUrl());
}

/** Deletes every key under a prefix. */
export async function deletePrefix(redis: Redis, prefix: string): Promise<void> {
  await deleteKeysUnder(redis, prefix);
}
