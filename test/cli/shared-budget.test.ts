import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { startOtherClient, type OtherClient } from '../kit/other-client.js';
import { readShares, type LaneShare } from '../../src/client/budget/share-status.js';
import { startFeedServer, type FeedServer } from '../../src/feed/feed-server.js';
import type { StatusReport } from '../../src/ops/status-report.js';
import { redisKeys } from '../../src/redis/connection.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { benchOrders } from '../../bench/lib/order-records.js';
import { connect, deletePrefix, redisUrl, uniquePrefix } from '../helpers/redis.js';
import { baseEnv, runCli } from './run-cli.js';
import { eventually, startWorkerProcess, type WorkerProcess } from './worker-process.js';
import { SECRETS } from './stack.js';
import { STREAMS } from '../../jobs/kinds.js';

/**
 * Two `inventory-sync worker` processes share one total with another client of the account (the sandbox counts
 * every request of both against it, in windows of 6 s, and says what is left in X-RateLimit-* headers, or only
 * answers 429 with X-RateLimit-Limit and -Reset). The two tests run side by side, each with its own sandbox and prefix:
 * they wait on the service's windows, not on the CPU (two workers at 600 a minute each).
 */
describe('a total budget shared with another client of the account', () => {
  /** One test's sandbox, feed, prefix and processes, torn down when that test ends (the two run side by side). */
  async function startWorld(onFinished: (fn: () => Promise<void>) => void) {
    // 60 requests in 6 s is the 600 a minute the program is told, in windows short enough for a test.
    const sandbox: Sandbox = await startSandbox({
      port: 0,
      data: 'demo',
      key: SECRETS.key,
      secret: SECRETS.secret,
      budgets: { total: { limit: 60, windowMs: 6_000 } },
    });
    const feed: FeedServer = await startFeedServer({
      port: 0,
      names: STREAMS,
      streams: { orders: benchOrders(`SHARE-${Date.now()}`, 600) },
      token: SECRETS.token,
    });
    const redis: Redis = connect();
    const prefix = uniquePrefix('shared-budget');
    const env: Record<string, string> = {
      ...baseEnv(),
      LOG_LEVEL: 'info',
      REDIS_URL: redisUrl(),
      QUEUE_PREFIX: prefix,
      INVENTORY_BASE_URL: sandbox.url,
      INVENTORY_ACCOUNT: sandbox.account,
      INVENTORY_API_KEY: SECRETS.key,
      INVENTORY_API_SECRET: SECRETS.secret,
      INVENTORY_REQUESTS_PER_MINUTE: '600',
      INVENTORY_POST_PER_MINUTE: '600',
      INVENTORY_GET_PER_MINUTE: '600',
      UPSTREAM_URL: feed.url,
      UPSTREAM_TOKEN: SECRETS.token,
      ORDER_POLL_SECONDS: '1',
      WORKER_HTTP_PORT: '0',
    };
    const w = { sandbox, env, workers: [] as WorkerProcess[], other: undefined as OtherClient | undefined };
    onFinished(async () => {
      await w.other?.stop();
      await Promise.all(w.workers.map((p) => p.stop()));
      await feed.close();
      await sandbox.close();
      await deletePrefix(redis, prefix);
      redis.disconnect();
    });
    const total = async (): Promise<LaneShare> => (await readShares(redis, redisKeys(prefix))).total;
    return { w, total };
  }

  /** Two worker processes on the world's account, then another client of the account spending 300 a minute. */
  const startBeside = async (w: Awaited<ReturnType<typeof startWorld>>['w']) => {
    w.workers = [startWorkerProcess(w.env), startWorkerProcess(w.env)];
    await Promise.all(w.workers.map((p) => p.httpUrl));
    return (w.other = startOtherClient({
      url: w.sandbox.url,
      account: w.sandbox.account,
      key: SECRETS.key,
      secret: SECRETS.secret,
      perMinute: 300,
    }));
  };

  it.concurrent(
    'lowers its rate while the other client spends the budget, and takes it back when it stops',
    async ({ onTestFinished }) => {
      const { w, total } = await startWorld(onTestFinished);
      const { sandbox, env } = w;
      const other = await startBeside(w);

      // Half the total goes to the other client: the workers' share comes down, for the reason that it does.
      await eventually(
        async () => {
          const s = await total();
          return s.factor < 0.8 && (s.reason === 'shared-remaining' || s.reason === 'shared-429') && (s.otherPerMinute ?? 0) > 100;
        },
        60_000,
        'the share to come down because of the other client',
      );
      const status = await runCli(['status', '--json'], env);
      const row = (JSON.parse(status.stdout) as StatusReport).budget.find((b) => b.cls === 'total')!;
      expect(row.configuredPerMinute).toBe(600);
      expect(row.effectivePerMinute!).toBeLessThan(600 * 0.98 * 0.8);
      // Read a moment after the share came down: it may be on its way back up already, a step at a time, or pacing
      // by what the service's window has left, which the other client spent.
      expect(row.why).toMatch(/another client of the account|climbing back a step at a time/);
      // Both processes pace by the one share in Redis; at least one said why it lowered it.
      const lines = w.workers.flatMap((p) => p.stdoutLines);
      expect(lines.some((l) => l.includes('another client of the account spends the same budget'))).toBe(true);

      await other.stop();
      w.other = undefined;
      await eventually(
        async () => {
          const s = await total();
          return s.factor >= 0.95;
        },
        90_000,
        'the share to climb back once the other client stopped',
      );
      expect(sandbox.admin.counters().actions).toBeGreaterThan(0);
    },
    200_000,
  );

  it.concurrent(
    'with X-RateLimit-* on 429s only, reads the others from its 429s and leaves them almost none',
    async ({ onTestFinished }) => {
      const { w, total } = await startWorld(onTestFinished);
      const { sandbox, env } = w;
      sandbox.admin.setBudgets({ total: { limit: 60, windowMs: 6_000 }, rateHeaders: 'on-429' });
      // From the whole budget, as a share settles after its slow start: 60 in 6 s is not the 600 a minute the program is
      // told, so the window is learnt from 429s of two windows in a row (the slow start: test/client/budget/slow-start.test.ts).
      env.INVENTORY_RATE_START_PERCENT = '100';
      const other = await startBeside(w);

      // Half the total goes to the other client: read from a 429 (the window spent, less what the workers sent in it).
      await eventually(
        async () => {
          const s = await total();
          return s.factor < 0.8 && s.otherSource === '429' && (s.otherPerMinute ?? 0) > 150 && (s.otherPerMinute ?? 0) < 450;
        },
        60_000,
        'the share to come down to what the other client leaves',
      );
      // Settled: a window for the share to act, then four windows in which the other client meets (almost) no 429.
      await new Promise((r) => setTimeout(r, 6_000));
      const o0 = other.counts();
      const done0 = sandbox.admin.counters().actions;
      await new Promise((r) => setTimeout(r, 24_000));
      const o1 = other.counts();
      expect(o1.sent - o0.sent).toBeGreaterThan(80);
      expect((o1.rateLimited - o0.rateLimited) / (o1.sent - o0.sent)).toBeLessThanOrEqual(0.05);
      expect(sandbox.admin.counters().actions).toBeGreaterThan(done0);
    },
    120_000,
  );
});
