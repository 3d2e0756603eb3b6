import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboard, type Dashboard } from '../../src/dashboard/dashboard-server.js';
import { createLogger } from '../../src/log/logger.js';
import { redisKeys } from '../../src/redis/connection.js';
import { startRedisServer, type RedisServer } from '../../src/redis/embedded-server.js';
import { programKinds } from '../../jobs/kinds.js';
import { raw } from './dashboard-http.js';

/** Issue 56: Redis refusing writes holds every account; the all-accounts page says so above the list, and still reads. */
describe('the all-accounts page, while Redis refuses writes', () => {
  let server: RedisServer;
  let redis: Redis;
  let d: Dashboard;

  beforeAll(async () => {
    server = await startRedisServer();
    redis = new Redis(server.url);
    const accounts = ['acme', 'beta'].map((name) => ({ name, prefix: `{full-${name}}` }));
    await redis.hset(redisKeys('{full-beta}').outage(), { state: 'open', since: Date.now(), reason: 'HTTP 503' });
    d = await startDashboard({
      host: '127.0.0.1',
      port: 0,
      auth: null,
      kinds: programKinds,
      redis,
      prefix: 'full',
      logger: createLogger({ level: 'silent' }),
      accounts: { current: () => accounts },
    });
  }, 30_000);

  afterAll(async () => {
    await d?.close();
    redis?.disconnect();
    await server?.stop();
  });

  it('says nothing of Redis while it takes writes', async () => {
    const page = await raw(`${d.url}/`);
    expect(page.status).toBe(200);
    expect(page.body).not.toContain('id="redis-refused"');
  });

  it('says Redis refuses writes, with its answer, and still lists the accounts, the one in need first', async () => {
    await redis.config('SET', 'maxmemory-policy', 'noeviction');
    await redis.config('SET', 'maxmemory', '1');
    // Past the state's 5 s: the next request reads again, and probes.
    await new Promise((r) => setTimeout(r, 5_200));
    const page = await raw(`${d.url}/`);
    await redis.config('SET', 'maxmemory', '0');
    expect(page.status).toBe(200);
    const banner = /<p class="bad" id="redis-refused" role="alert">.*?<\/p>/s.exec(page.body)?.[0] ?? '';
    expect(banner).toContain('Redis refuses writes since');
    expect(banner).toContain('OOM');
    expect(banner).toContain('go on by themselves once Redis takes writes again');
    expect([...page.body.matchAll(/<tr data-account="([^"]+)">/g)].map((m) => m[1])).toEqual(['beta', 'acme']);
  }, 20_000);
});
