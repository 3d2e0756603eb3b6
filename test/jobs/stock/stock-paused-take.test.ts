import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stockKeys } from '../../../jobs/stock/stock-keys.js';
import type { JobResult } from '../../../src/queue/job-context.js';
import { countRecord, leftToNewer, postedLines, stockAt } from '../../helpers/count-record.js';
import { redisUrl } from '../../helpers/redis.js';
import { replyHoldProxy, type ReplyHold } from '../../helpers/reply-hold.js';
import { killAll, startStockWorker } from '../../helpers/stock-worker.js';
import { jobOf, testWorld, type TestWorld } from '../../helpers/test-world.js';
import { until } from '../../kit/until.js';

const LOCATION = 'N-02';

interface PausedRun {
  world: TestWorld;
  products: string[];
  before: Map<string, number>;
  older: ReturnType<typeof countRecord>;
  newer: ReturnType<typeof countRecord>;
}

/**
 * Worker A (its Redis through a proxy) takes an older count of LOCATION; `pause` holds A's traffic from some point of
 * it; worker B takes a newer count of the same products once A's lock has run out; A's traffic is let through at
 * `releaseAt` of B's. Both run to the end.
 */
function pausedRun(
  name: string,
  pause: (proxy: ReplyHold, lockKey: string) => Promise<void>,
  releaseAt: (world: TestWorld, lockKey: string, paused: string | null) => Promise<unknown>,
  workerEnv: Record<string, string> = {},
): PausedRun {
  const run = { products: [] as string[], before: new Map<string, number>() } as PausedRun;
  const children: ChildProcess[] = [];
  let proxy: ReplyHold | undefined;
  beforeAll(async () => {
    // The newer count's collection read is slow: the paused worker is let go while the newer one plans.
    const world = await testWorld(name, { streams: ['stock-counts', 'boms'], workers: false, sandbox: { latency: { ms: 300 } } });
    run.world = world;
    const loc = world.facility(LOCATION);
    const state = world.sandbox.admin.state();
    run.products = [...new Set(state.inventory.filter((r) => r.facilityUrl === loc).map((r) => r.productId))].slice(0, 3);
    for (const p of run.products) run.before.set(p, stockAt(world, LOCATION, p));
    const count = (id: string, date: string, plus: number) =>
      countRecord(
        id,
        LOCATION,
        date,
        run.products.map((p): [string, number] => [p, run.before.get(p)! + plus]),
      );
    run.older = count('CNT-PAUSED-OLD', '2026-11-21', 5);
    run.newer = count('CNT-PAUSED-NEW', '2026-11-22', 2);

    proxy = await replyHoldProxy(redisUrl());
    const lockKey = stockKeys(world.keys).locationLock(loc);
    await startStockWorker(world, children, { CHUNK: '500', ...workerEnv, REDIS_URL: proxy.url });
    const paused = pause(proxy, lockKey);
    await world.add('stock-counts', [run.older]);
    await paused;
    await until(async () => (await world.redis.exists(lockKey)) === 1, 10_000, { everyMs: 10, what: "worker A's lock" });
    const held = await world.redis.get(lockKey);
    // Worker B, and the newer count: B takes the lock once A's has run out (A renews it no more).
    await startStockWorker(world, children, { CHUNK: '500', ...workerEnv });
    await world.add('stock-counts', [run.newer]);
    await releaseAt(world, lockKey, held);
    proxy.release();
    await world.idle(40_000);
  }, 90_000);
  afterAll(async () => {
    killAll(children);
    await proxy?.close();
    await run.world?.close();
  });
  return run;
}

/** What every paused run must end with: the newer count everywhere, once, and the older one left wholly to it. */
function endsWithTheNewerCount(run: PausedRun): void {
  it('holds the newer count at every product, each difference applied once, each product marked by it', async () => {
    const { world, products, before } = run;
    for (const p of products) expect(stockAt(world, LOCATION, p), p).toBe(before.get(p)! + 2);
    const posted = postedLines(world, LOCATION);
    for (const p of products) expect(posted.get(p), p).toEqual([2]);
    const marks = await world.redis.hmget(stockKeys(world.keys).marks(world.facility(LOCATION)), ...products.map((p) => world.product(p)));
    expect(marks.map((m) => (JSON.parse(m ?? '{}') as { countId?: string }).countId)).toEqual(products.map(() => run.newer.countId));
  });

  it('leaves the older count wholly to the newer one once it holds the lock for real', async () => {
    const job = await jobOf(run.world, 'stock-counts', run.older.countId);
    expect(job.finishedOn).toBeDefined();
    const result = job.returnvalue as JobResult;
    expect(result.outcome).toBe('skipped');
    expect(leftToNewer(result)).toEqual({ [run.newer.countId]: [...run.products].sort() });
  });
}

/**
 * The short chaos run's failure of stop 65: a worker stopped right after sending the take of a location's lock (the
 * take ran; its answer waited) past the lock's life, while another worker took the lock for a newer count of the same
 * products. Thawed, the first took the late "OK" for a fresh lock and planned the older count beside the newer one, both
 * against the same stock: both differences applied (stock = older + newer - before). Here worker A's answers wait in the
 * proxy from its take on (its commands still run, as a paused process's already sent ones did), and are let through as
 * soon as worker B holds the lock.
 */
describe('a count whose worker paused between taking its location lock and reading the answer, past the lock life', () => {
  const run = pausedRun(
    'stock-paused-take',
    (proxy, lockKey) => proxy.holdFrom(lockKey),
    (world, lockKey, paused) =>
      until(async () => ![paused, null].includes(await world.redis.get(lockKey)), 20_000, {
        everyMs: 10,
        what: 'worker B to take the lock',
      }),
  );
  endsWithTheNewerCount(run);
});

/**
 * A plan written as the lock ran out: the write waits in the connection (Redis restarting, a reconnection's back-off)
 * while the lock's life ends and another worker plans and posts the newer count. Redis checks the lock when the write
 * runs: nothing of the older plan lands. Worker A's job lock is long here, so A keeps the older count's job throughout.
 */
describe("a count's plan whose write waited in its connection until the lock had run out", () => {
  const run = pausedRun(
    'stock-held-plan',
    (proxy) => proxy.holdCommandsFrom('snapshotId'),
    (world) =>
      until(async () => (await jobOf(world, 'stock-counts', 'CNT-PAUSED-NEW').catch(() => undefined))?.finishedOn !== undefined, 20_000, {
        everyMs: 10,
        what: 'the newer count',
      }),
    { JOB_LOCK_MS: '20000' },
  );
  endsWithTheNewerCount(run);
});
