import type { TestProject } from 'vitest/node';
import { redisForRun } from '../src/redis/embedded-server.js';
import { requirePrerequisites, stopRun, testRedisUrl } from './setup/prerequisites.js';

/**
 * Every project needs a real Redis: the one at REDIS_URL (default 127.0.0.1:6379) when it answers, else a private
 * redis-server for this run, stopped at the end (installed first with apt-get when missing and this is root).
 */
export default async function setup(project: TestProject) {
  await requirePrerequisites(['redis']);
  const url = testRedisUrl();
  const redis = await redisForRun(url).catch((err: Error & { hint?: string }) => stopRun([`Redis: ${err.message}: ${err.hint ?? ''}`]));
  if (redis.private) process.stderr.write(`Redis: none answered at ${url}; started a private redis-server at ${redis.url} for this run\n`);
  project.provide('redisUrl', redis.url);
  return () => redis.stop();
}
