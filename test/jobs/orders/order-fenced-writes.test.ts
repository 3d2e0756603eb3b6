import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOrderWorkerProcess } from '../../helpers/order-worker-process.js';
import { orderRecord, orderState, syncedOnce } from '../../helpers/order-records.js';
import { eachPointApart, FREEZE_POINTS, frozenRun, LOCK_MS, type FrozenRun } from '../../helpers/frozen-writes.js';
import type { TestWorld } from '../../helpers/test-world.js';
import { ABANDONED_TEXT } from '../../../src/queue/lease/lease-words.js';

/**
 * Issue 50: a worker frozen (SIGSTOP) past the lock's life at each point of an order's shipment create while another
 * worker takes the job over, then thawed. The sandbox answers as observed (it assigns shipment ids: a second create
 * would be a second shipment): one shipment every time, the order completed, the job completed and never failed.
 */
describe('an order whose worker is frozen at its shipment create past the lock, then thawed', () => {
  /** Each point's world of its own (eachPointApart: the points side by side). */
  const worlds = new Map<string, TestWorld>();
  const runs = new Map<string, FrozenRun>();
  const lines = new Map<string, string[]>();
  const id = (point: string) => `FENCED-${point}`;
  beforeAll(async () => {
    await eachPointApart(
      worlds,
      'order-fenced',
      { streams: ['orders'], workers: false, sandbox: { latency: { ms: 600 } } },
      async (world, point) => {
        await world.deps.catalog.refresh();
        const said: string[] = [];
        lines.set(point, said);
        const start = (env: Record<string, string>) =>
          startOrderWorkerProcess(world, { concurrency: 2, env, ...(env.ISYNC_TEST_FREEZE_AT ? { lines: said } : {}) });
        const record = orderRecord(id(point));
        runs.set(point, await frozenRun(world, { stream: 'orders', start, record, key: id(point), call: 'createShipment', point }));
      },
    );
  }, 200_000);
  afterAll(async () => {
    await Promise.all([...worlds.values()].map((w) => w.close()));
  });

  it.each(FREEZE_POINTS)('frozen %s: one order, one shipment, shipped and completed', (point) => {
    const state = worlds.get(point)!.sandbox.admin.state();
    const { orders, shipments } = orderState(state, id(point));
    expect({ orders: orders.length, shipments: shipments.length }).toEqual({ orders: 1, shipments: 1 });
    expect(syncedOnce(state, [id(point)])).toBe(true);
  });

  it.each(FREEZE_POINTS)('frozen %s past the lock: the job completed, never failed', (point) => {
    const run = runs.get(point)!;
    expect(run.frozenMs).toBeGreaterThanOrEqual(2 * LOCK_MS);
    expect(run.failedReasons).toEqual([]);
    expect(run.states.every((s) => s === 'completed')).toBe(true);
  });

  it.each(FREEZE_POINTS)("frozen %s: the job's trace tells the settled intent, and the abandoned write", (point) => {
    const { notes } = runs.get(point)!;
    expect(notes.some((n) => n.startsWith('intent settled by reading: '))).toBe(true);
    if (point === 'before-check' || point === 'after-check') expect(notes).toContain(ABANDONED_TEXT);
  });

  it('frozen before the check or between it and the send, the thawed worker abandons the write', () => {
    for (const point of ['before-check', 'after-check']) {
      const lost = lines.get(point)!.filter((l) => l.includes('"LEASE_LOST"'));
      expect(lost.length, point).toBeGreaterThan(0);
      expect(lost[0]).toMatch(/write abandoned: lease lost \(another execution holds the job\)/);
    }
  });
});
