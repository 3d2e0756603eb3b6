import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { formatClusterNodes } from '../../src/redis/connection.js';
import { startLocalSentinel, type SentinelAccess } from '../kit/local-sentinel.js';
import { requirePrerequisites, stopRun } from './prerequisites.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** In the `sentinel` project: the sentinel that watches a primary and its replica, and their passwords. */
    redisSentinel?: SentinelAccess;
  }
}

/**
 * The `sentinel` project: a primary, its replica and a sentinel of its own for the run, each with a password,
 * reached as an operator would (REDIS_SENTINELS, REDIS_SENTINEL_NAME, REDIS_SENTINEL_PASSWORD, REDIS_PASSWORD).
 */
export default async function setup(project: TestProject) {
  await requirePrerequisites(['redis-server']);
  const hex = () => randomBytes(8).toString('hex');
  const local = await startLocalSentinel({ name: 'isync-primary', password: `data-${hex()}`, sentinelPassword: `sent-${hex()}` }).catch(
    (err: Error) => stopRun([`Redis Sentinel: could not start a primary, a replica and a sentinel: ${err.message}`]),
  );
  const { stop, ...access } = local;
  project.provide('redisSentinel', access);
  project.provide('redisSettings', {
    REDIS_SENTINELS: formatClusterNodes([local.sentinel]),
    REDIS_SENTINEL_NAME: local.name,
    REDIS_SENTINEL_PASSWORD: local.sentinelPassword,
    REDIS_PASSWORD: local.password,
  });
  return stop;
}
