import { spawnSync } from 'node:child_process';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { defaultRedisGuard, redisUrl } from '../helpers/redis.js';

/** Issue 38: no test configuration may fall back to the default Redis address (the run's Redis may be elsewhere). */
describe('the default Redis guard of the test run', () => {
  it('makes a connection to 127.0.0.1:6379 throw at once, saying how to build it on the run’s Redis', () => {
    const guard = new URL('../setup/default-redis-guard.mjs', import.meta.url).href;
    const tryDefault = "import('ioredis').then(({ Redis }) => new Redis('redis://127.0.0.1:6379'))";
    const r = spawnSync(process.execPath, ['--import', guard, '-e', tryDefault], { encoding: 'utf8', timeout: 20_000 });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('a connection to the default Redis address 127.0.0.1:6379');
    expect(r.stderr).toContain('redisTarget()');
  });

  it('is on in every test file, and in the processes tests start, when the run’s Redis is not the default address', () => {
    const elsewhere = !/^redis:\/\/(127\.0\.0\.1|localhost|\[::1\]):6379$/.test(redisUrl().replace(/\/$/, ''));
    expect((Redis.prototype.connect as { defaultRedisGuard?: boolean }).defaultRedisGuard === true).toBe(elsewhere);
    expect(defaultRedisGuard().length > 0).toBe(elsewhere);
  });
});
