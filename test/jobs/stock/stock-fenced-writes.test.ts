import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRecord } from '../../helpers/count-record.js';
import { eachPointApart, FREEZE_POINTS, frozenRun, LOCK_MS, type FrozenRun } from '../../helpers/frozen-writes.js';
import { killAll, startStockWorker } from '../../helpers/stock-worker.js';
import type { TestWorld } from '../../helpers/test-world.js';

/**
 * Issue 50: a worker frozen (SIGSTOP) past the lock's life at each point of a count's variance while another worker
 * takes the job over, then thawed while the other's writes are still to come. A variance is not idempotent (a second
 * one adds the difference again): one variance every time, the stock as counted, the job completed and never failed.
 */
describe('a stock count whose worker is frozen at its variance past the lock, then thawed', () => {
  /** Each point's world of its own (eachPointApart: the points side by side). */
  const worlds = new Map<string, TestWorld>();
  const children = new Map<string, ChildProcess[]>();
  const runs = new Map<string, FrozenRun>();
  const variances = new Map<string, number>();
  const where = new Map<string, { facilityUrl: string; productUrl: string; quantity: number }>();
  const LOCATIONS = ['A-01', 'A-02', 'N-01', 'N-02'];
  beforeAll(async () => {
    await eachPointApart(
      worlds,
      'stock-fenced',
      { streams: ['stock-counts', 'boms'], workers: false, sandbox: { latency: { ms: 600 } } },
      async (world, point, i) => {
        const state = world.sandbox.admin.state();
        const name = LOCATIONS[i]!;
        const facilityUrl = world.facility(name);
        const productId = state.inventory.find((r) => r.facilityUrl === facilityUrl)!.productId;
        const productUrl = world.product(productId);
        const quantity = world.sandbox.admin.stockOnHand(facilityUrl, productUrl) + 3;
        where.set(point, { facilityUrl, productUrl, quantity });
        const countId = `FENCED-${point}`;
        const before = world.sandbox.admin.counters().creates.variance;
        const started: ChildProcess[] = [];
        children.set(point, started);
        const start = (env: Record<string, string>) => startStockWorker(world, started, { CHUNK: '500', ...env });
        const record = countRecord(countId, name, '2026-11-30', [[productId, quantity]]);
        runs.set(point, await frozenRun(world, { stream: 'stock-counts', start, record, key: countId, call: 'createVariance', point }));
        variances.set(point, world.sandbox.admin.counters().creates.variance - before);
        killAll(started);
      },
    );
  }, 200_000);
  afterAll(async () => {
    for (const started of children.values()) killAll(started);
    await Promise.all([...worlds.values()].map((w) => w.close()));
  });

  it.each(FREEZE_POINTS)('frozen %s: one variance, the stock as counted', (point) => {
    const w = where.get(point)!;
    expect(variances.get(point)).toBe(1);
    expect(worlds.get(point)!.sandbox.admin.stockOnHand(w.facilityUrl, w.productUrl)).toBe(w.quantity);
  });

  it.each(FREEZE_POINTS)('frozen %s past the lock: the job completed, never failed', (point) => {
    const run = runs.get(point)!;
    expect(run.frozenMs).toBeGreaterThanOrEqual(2 * LOCK_MS);
    expect(run.failedReasons).toEqual([]);
    expect(run.states.every((s) => s === 'completed')).toBe(true);
  });
});
