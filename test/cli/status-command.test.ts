import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestBudget } from '../../src/client/budget.js';
import { recordPage } from '../../src/queue/feed-state.js';
import { redisKeys } from '../../src/redis.js';
import { connect, deletePrefix, redisUrl, uniquePrefix } from '../helpers/redis.js';
import { baseEnv, runCli } from './run-cli.js';
import { seedJobs, type Seeded } from './seed-jobs.js';

describe('status', () => {
  let redis: Redis;
  let prefix: string;
  let seeded: Seeded;
  let env: Record<string, string>;

  beforeAll(async () => {
    redis = connect();
    prefix = uniquePrefix('status');
    seeded = await seedJobs(redis, prefix);
    const keys = redisKeys(prefix);
    // The orders feed was caught up a minute ago; stock counts were pulled but still have more.
    await recordPage(redis.multi(), keys, 'orders', { cursor: 'c1.abc', size: 2, queued: 2, duplicates: 0, invalid: 0, newest: 'WEB-2', caughtUp: true }).exec();
    await redis.hset(keys.feedState('orders'), 'caughtUpAt', new Date(Date.now() - 60_000).toISOString());
    const budget = new RequestBudget({ redis, keys, budgets: { postPerMinute: 120, getPerMinute: 120, collectionPerHour: 300, headroom: 0.98 } });
    await budget.acquire('post');
    await budget.acquire('post');
    await budget.hold('get', Date.now() + 30_000);
    env = { ...baseEnv(), REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix };
  });
  afterAll(async () => {
    await deletePrefix(redis, prefix);
    redis.disconnect();
  });

  it('prints counts, feed position, budget use and failures by reason, and exits 0', async () => {
    const r = await runCli(['status'], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Status of prefix ${prefix}`);
    expect(r.stdout).toMatch(/orders\s+0\s+0\s+0\s+1\s+1\s+c1\.abc\s+\S+ \S+\s+(\d+ s|1 min)/);
    expect(r.stdout).toMatch(/stock-counts\s+1\s+0\s+0\s+0\s+0\s+-\s+-\s+never caught up/);
    expect(r.stdout).toMatch(/post\s+120\/min\s+2\s+/);
    expect(r.stdout).toMatch(/get\s+120\/min\s+0\s+0\.0 s\s+1\s+\d+\s+held until .* \(429\)/);
    expect(r.stdout).toMatch(/orders\s+BAD_RECORD\s+1\s+lines\.0\.productId: unknown product NO-SUCH\s+orders-WEB-2-/);
  });

  it('answers --json with the same report', async () => {
    const r = await runCli(['status', '--json'], env);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.prefix).toBe(prefix);
    const orders = s.streams.find((x: { stream: string }) => x.stream === 'orders');
    expect(orders.counts).toMatchObject({ waiting: 0, active: 0, delayed: 0, failed: 1, completed: 1 });
    expect(orders.feed).toMatchObject({ cursor: 'c1.abc', recordsQueued: 2, newestRecord: 'WEB-2', lastError: null });
    expect(orders.feed.behindSeconds).toBeGreaterThanOrEqual(60);
    expect(s.budget.find((b: { cls: string }) => b.cls === 'post')).toMatchObject({ limit: '120/min', requests: 2, holds: 0, heldUntil: null });
    expect(s.budget.find((b: { cls: string }) => b.cls === 'get')).toMatchObject({ holds: 1 });
    expect(s.failedGroups).toEqual([
      { stream: 'orders', code: 'BAD_RECORD', reason: 'lines.0.productId: unknown product NO-SUCH', count: 1, examples: [seeded.failedId] },
    ]);
    expect(Array.isArray(s.schedule)).toBe(true);
  });
});
