import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServer } from '../../src/redis/embedded-server.js';
import { checkEvictionPolicy, evictionWarning, readEvictionPolicy } from '../../src/redis/eviction-policy.js';
import { createRedis } from '../../src/redis/connection.js';
import { baseEnv, runCli } from '../cli/run-cli.js';
import { connect } from '../helpers/redis.js';

const POLICIES = [
  'noeviction',
  'allkeys-lru',
  'allkeys-lfu',
  'allkeys-random',
  'volatile-lru',
  'volatile-lfu',
  'volatile-random',
  'volatile-ttl',
];

describe("Redis's eviction policy", () => {
  describe('when deciding', () => {
    it('is quiet for noeviction only', () => {
      expect(evictionWarning('noeviction')).toBeNull();
      for (const policy of POLICIES.slice(1)) {
        const warning = evictionWarning(policy);
        expect(warning).toContain(`maxmemory-policy is ${policy}, not noeviction`);
        expect(warning).toContain('CONFIG SET maxmemory-policy noeviction');
      }
    });

    it('warns when the policy cannot be read, saying why', () => {
      expect(evictionWarning(null, 'NOPERM')).toMatch(/^could not read Redis's maxmemory-policy \(NOPERM\); make sure it is noeviction/);
    });
  });

  describe('when read from the shared Redis (read only: its configuration is never changed)', () => {
    it('answers its policy, and warns exactly when it is not noeviction', async () => {
      const redis = connect();
      try {
        const policy = await readEvictionPolicy(redis);
        expect(POLICIES).toContain(policy);
        expect(await checkEvictionPolicy(redis)).toEqual({ policy, warning: policy === 'noeviction' ? null : expect.any(String) });
      } finally {
        redis.disconnect();
      }
    });
  });

  describe('when a Redis evicts (a private redis-server with allkeys-lru)', () => {
    let server: RedisServer;
    let redis: Redis;
    beforeAll(async () => {
      server = await startRedisServer({ args: ['--maxmemory-policy', 'allkeys-lru'] });
      redis = createRedis(server.url);
    }, 30_000);
    afterAll(async () => {
      redis?.disconnect();
      await server?.stop();
    });

    it('is a warning in the check, the start log of a command, and `status` (text and --json)', async () => {
      expect(await checkEvictionPolicy(redis)).toEqual({
        policy: 'allkeys-lru',
        warning: expect.stringContaining('maxmemory-policy is allkeys-lru, not noeviction'),
      });
      const env = { ...baseEnv(), REDIS_URL: server.url, QUEUE_PREFIX: 'evict' };

      const file = join(mkdtempSync(join(tmpdir(), 'isync-evict-')), 'counts.ndjson');
      writeFileSync(file, '{"countId":"C-1","location":"L","countDate":"2026-11-20","items":[{"productId":"P","quantity":1}]}\n');
      const imported = await runCli(['import', 'stock-counts', file], env);
      expect(imported.code, imported.stderr).toBe(0);
      // BullMQ prints its own plain line ("IMPORTANT! Eviction policy is ..."); the program's is a JSON log line.
      const warned = imported.stderr
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { level: number; maxmemoryPolicy?: string; msg: string });
      expect(warned).toContainEqual(
        expect.objectContaining({ level: 40, maxmemoryPolicy: 'allkeys-lru', msg: expect.stringContaining('not noeviction') }),
      );

      const json = await runCli(['status', '--json'], env);
      expect(json.code).toBe(0);
      expect(JSON.parse(json.stdout).redis).toEqual({ maxmemoryPolicy: 'allkeys-lru', warning: expect.stringContaining('not noeviction') });
      const text = await runCli(['status'], env);
      expect(text.stdout).toMatch(/^Warning: Redis's maxmemory-policy is allkeys-lru, not noeviction\./m);
    }, 60_000);
  });
});
