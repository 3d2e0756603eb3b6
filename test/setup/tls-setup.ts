import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startRedisServer } from '../../src/redis/embedded-server.js';
import { requirePrerequisites, stopRun } from './prerequisites.js';
import { makeTlsFiles } from './tls-files.js';

/**
 * The `tls` project: a Redis that speaks TLS only, with a certificate of a private CA made for the run, and a
 * password, as managed Redis offers it; the tests reach it as an operator would (REDIS_URL=rediss://:password@...,
 * REDIS_TLS_CA_FILE).
 */
export default async function setup(project: TestProject) {
  await requirePrerequisites(['redis-server', 'openssl']);
  const dir = mkdtempSync(join(tmpdir(), 'isync-tls-'));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  try {
    const tls = await makeTlsFiles(dir);
    const server = await startRedisServer({ tls, password: `tls-${randomBytes(8).toString('hex')}` });
    project.provide('redisSettings', { REDIS_URL: server.url, REDIS_TLS_CA_FILE: tls.caFile });
    return async () => {
      await server.stop();
      cleanup();
    };
  } catch (err) {
    cleanup();
    return stopRun([`Redis with TLS: could not start one: ${(err as Error).message}`]);
  }
}
