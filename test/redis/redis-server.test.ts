import { describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/app/connect-redis.js';
import { UnreachableError } from '../../src/errors/unreachable-error.js';
import { redisForRun } from '../../src/redis/embedded-server.js';
import { redisUrl } from '../helpers/redis.js';

describe('redis for a run (the demo, the test suite)', () => {
  describe('when a Redis answers at REDIS_URL', () => {
    it('uses it and starts nothing', async () => {
      const r = await redisForRun(redisUrl(), process.env.PATH);
      expect(r).toMatchObject({ url: redisUrl(), private: false });
      await r.stop();
    });
  });

  describe('when none answers but redis-server is on PATH', () => {
    it('starts a private one on a free port and stops it after', async () => {
      const r = await redisForRun('redis://127.0.0.1:1', process.env.PATH);
      expect(r.private).toBe(true);
      expect(r.url).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
      const client = await connectRedis(r.url);
      expect(await client.ping()).toBe('PONG');
      client.disconnect();
      await r.stop();
      await expect(connectRedis(r.url, { timeoutMs: 500 })).rejects.toBeInstanceOf(UnreachableError);
    });
  });

  describe('when none answers and redis-server is not installed', () => {
    it('says exactly how to get one', async () => {
      const err = await redisForRun('redis://127.0.0.1:1', '/nonexistent').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UnreachableError);
      const hint = (err as UnreachableError).hint;
      expect(hint).toContain('sudo apt-get install redis-server');
      expect(hint).toContain('brew install redis');
      expect(hint).toContain('REDIS_URL');
    });
  });
});
