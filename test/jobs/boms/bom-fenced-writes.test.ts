import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eachPointApart, FREEZE_POINTS, frozenRun, LOCK_MS, type FrozenRun } from '../../helpers/frozen-writes.js';
import { killAll, startStockWorker } from '../../helpers/stock-worker.js';
import type { TestWorld } from '../../helpers/test-world.js';

/**
 * Issue 50: a worker frozen (SIGSTOP) past the lock's life at each point of a BOM's product update while another
 * worker takes the job over, then thawed while the other's writes are still to come. The products have no bill yet:
 * an update sent twice without the entry's URL adds a second entry. One MANUF_COMPONENT entry every time, with the
 * record's components, the job completed and never failed.
 */
describe('a BOM whose worker is frozen at its product update past the lock, then thawed', () => {
  /** Each point's world of its own (eachPointApart: the points side by side). */
  const worlds = new Map<string, TestWorld>();
  const children = new Map<string, ChildProcess[]>();
  const runs = new Map<string, FrozenRun>();
  const products = new Map<string, string>();
  beforeAll(async () => {
    await eachPointApart(
      worlds,
      'bom-fenced',
      { streams: ['stock-counts', 'boms'], workers: false, sandbox: { latency: { ms: 600 } } },
      async (world, point, i) => {
        const bare = world.sandbox.admin
          .state()
          .products.filter(
            (p) => !p.productAssocList.some((a) => a.productAssocTypeId === 'MANUF_COMPONENT') && p.productId !== 'SKU-0001',
          );
        const productId = bare[i]!.productId;
        products.set(point, productId);
        const started: ChildProcess[] = [];
        children.set(point, started);
        const start = (env: Record<string, string>) => startStockWorker(world, started, { CHUNK: '500', ...env });
        const record = { productId, components: [{ productId: 'SKU-0001', quantity: i + 2 }] };
        runs.set(point, await frozenRun(world, { stream: 'boms', start, record, key: productId, call: 'updateProduct', point }));
        killAll(started);
      },
    );
  }, 200_000);
  afterAll(async () => {
    for (const started of children.values()) killAll(started);
    await Promise.all([...worlds.values()].map((w) => w.close()));
  });

  it.each(FREEZE_POINTS)("frozen %s: one bill on the product, the record's", (point) => {
    const product = worlds
      .get(point)!
      .sandbox.admin.state()
      .products.find((p) => p.productId === products.get(point))!;
    const bills = product.productAssocList.filter((a) => a.productAssocTypeId === 'MANUF_COMPONENT');
    expect(bills).toHaveLength(1);
    expect(bills[0]!.productAssocItemList.map((c) => c.quantity)).toEqual([FREEZE_POINTS.indexOf(point) + 2]);
  });

  it.each(FREEZE_POINTS)('frozen %s past the lock: the job completed, never failed', (point) => {
    const run = runs.get(point)!;
    expect(run.frozenMs).toBeGreaterThanOrEqual(2 * LOCK_MS);
    expect(run.failedReasons).toEqual([]);
    expect(run.states.every((s) => s === 'completed')).toBe(true);
  });
});
