import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestBudget } from '../../src/client/budget/budget.js';
import { recordPage } from '../../src/feed/feed-state.js';
import { redisKeys } from '../../src/redis/connection.js';
import { connect, deletePrefix, redisUrl, uniquePrefix } from '../helpers/redis.js';
import { baseEnv, runCli } from './run-cli.js';
import { seedFailedBatch, seedJobs, seedWaitingBatch, waitingCount, type Seeded } from './seed-jobs.js';

describe('status', () => {
  let redis: Redis;
  let prefix: string;
  let seeded: Seeded;
  let failedBatchId: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    redis = connect();
    prefix = uniquePrefix('status');
    seeded = await seedJobs(redis, prefix);
    // A batch failed (its data is no batch); then an import of two stock counts waits as one batch.
    failedBatchId = await seedFailedBatch(redis, prefix, 'stock-counts');
    await seedWaitingBatch(redis, prefix, [
      { ...waitingCount, countId: 'CNT-2' },
      { ...waitingCount, countId: 'CNT-3' },
    ]);
    const keys = redisKeys(prefix);
    // The orders feed was caught up a minute ago; stock counts were pulled but still have more.
    await recordPage(redis.multi(), keys, 'orders', {
      after: undefined,
      cursor: 'c1.abc',
      size: 2,
      queued: 2,
      duplicates: 0,
      invalid: 0,
      newest: 'WEB-2',
      caughtUp: true,
    }).exec();
    await redis.hset(keys.feedState('orders'), 'caughtUpAt', new Date(Date.now() - 60_000).toISOString());
    const budget = new RequestBudget({
      redis,
      keys,
      budgets: { postPerMinute: 120, getPerMinute: 120, collectionPerHour: 300, requestsPerMinute: 240, headroom: 0.98 },
    });
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
    expect(r.stdout).toMatch(/stock-counts\s+1\s+0\s+0\s+0\s+0\s+-\s+-\s+not pulled yet/);
    // Limit, then the rate the program allows itself now (120 × 0.98 while no other client spends the budget), then requests.
    expect(r.stdout).toMatch(/post\s+120\/min\s+118\/min\s+2\s+/);
    expect(r.stdout).toMatch(/get\s+120\/min\s+118\/min\s+0\s+0\.0 s\s+1\s+\d+\s+held until .* \(429\)/);
    // A total budget was spent by a process configured with one: its row shows (without a limit: not configured here).
    expect(r.stdout).toMatch(/total\s+-\s+-\s+2\s+/);
    expect(r.stdout).toMatch(/orders\s+BAD_RECORD\s+1\s+lines\.0\.productId: unknown product NO-SUCH\s+orders-WEB-2-/);
  });

  it('shows import batches apart from the jobs, and a failed batch among the failures', async () => {
    const r = await runCli(['status'], env);
    expect(r.code).toBe(0);
    // The stock-counts row still counts its one record job; the batches have their own table.
    expect(r.stdout).toMatch(/stock-counts\s+1\s+0\s+0\s+0\s+0\s+-/);
    const batches = r.stdout.slice(r.stdout.indexOf('Import batches by state'));
    expect(batches).toMatch(
      /^Import batches by state \(their records are not jobs yet; a worker turns each batch into one job per record\):\nSTREAM\s+WAITING\s+ACTIVE\s+DELAYED\s+FAILED\nstock-counts\s+1\s+0\s+0\s+1\n\n/,
    );
    expect(r.stdout).toMatch(
      new RegExp(`stock-counts\\s+BAD_BATCH\\s+1\\s+import batch: not a batch of records \\(items: .*\\s+${failedBatchId}`),
    );
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
    expect(s.budget.find((b: { cls: string }) => b.cls === 'post')).toMatchObject({
      limit: '120/min',
      requests: 2,
      holds: 0,
      heldUntil: null,
    });
    expect(s.budget.find((b: { cls: string }) => b.cls === 'get')).toMatchObject({ holds: 1 });
    expect(orders.intake).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 0 });
    const counts = s.streams.find((x: { stream: string }) => x.stream === 'stock-counts');
    expect(counts.counts).toMatchObject({ waiting: 1, failed: 0 });
    expect(counts.intake).toEqual({ waiting: 1, active: 0, delayed: 0, failed: 1 });
    expect(s.failedGroups).toEqual([
      {
        stream: 'orders',
        code: 'BAD_RECORD',
        reason: 'lines.0.productId: unknown product NO-SUCH',
        count: 1,
        examples: [seeded.failedId],
        batch: false,
        // The product may be added: a retry can help.
        retryHelps: true,
      },
      {
        stream: 'stock-counts',
        code: 'BAD_BATCH',
        reason: expect.stringMatching(/^not a batch of records \(items: /),
        count: 1,
        examples: [failedBatchId],
        batch: true,
        // A damaged batch is removed and imported again: no retry helps.
        retryHelps: false,
      },
    ]);
    expect(Array.isArray(s.schedule)).toBe(true);
  });
});
