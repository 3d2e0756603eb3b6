import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { beginStockSyncRun } from '../../src/stock/stock-run.js';
import { countRecord } from '../helpers/count-record.js';
import { jobOf, testWorld, type TestWorld } from '../helpers/test-world.js';

describe('stock count order per location', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await testWorld('stock-order', { streams: ['stock-counts', 'boms'] });
    await world.deps.catalog.refresh();
  });
  afterAll(async () => {
    await world?.close();
  });

  const onHand = (location: string, productId: string) => world.sandbox.admin.stockOnHand(world.facility(location), world.product(productId));

  describe('when an older count arrives after a newer one was applied', () => {
    beforeAll(async () => {
      await world.add('stock-counts', [countRecord('CNT-A04-22', 'A-04', '2026-11-22', [['SKU-0004', 10], ['SKU-0014', 3]])]);
      await world.idle();
      await world.add('stock-counts', [countRecord('CNT-A04-21', 'A-04', '2026-11-21', [['SKU-0004', 99], ['SKU-0014', 98]])]);
      await world.idle();
    });

    it('leaves the newer count in force', () => {
      expect(onHand('A-04', 'SKU-0004')).toBe(10);
      expect(onHand('A-04', 'SKU-0014')).toBe(3);
    });

    it('skips the older count and names the newer one', async () => {
      const job = await jobOf(world, 'stock-counts', 'CNT-A04-21');
      expect(job.returnvalue.outcome).toBe('skipped');
      expect(job.returnvalue.summary).toContain('older than count CNT-A04-22 (2026-11-22)');
      const [trace] = await world.traces('stock-counts', String(job.id));
      expect(trace!.calls).toHaveLength(0);
      expect(trace!.notes.map((n: { message: string }) => n.message).join('\n')).toContain('CNT-A04-22');
    });
  });

  describe('when two counts of one location arrive together out of order', () => {
    it('ends with the newer count, whichever runs first', async () => {
      await world.add('stock-counts', [
        countRecord('CNT-A05-24', 'A-05', '2026-11-24', [['SKU-0005', 7]]),
        countRecord('CNT-A05-23', 'A-05', '2026-11-23', [['SKU-0005', 70]]),
      ]);
      await world.idle();
      expect(onHand('A-05', 'SKU-0005')).toBe(7);
      const outcomes = [(await jobOf(world, 'stock-counts', 'CNT-A05-24')).returnvalue.outcome, (await jobOf(world, 'stock-counts', 'CNT-A05-23')).returnvalue.outcome];
      expect(outcomes[0]).toBe('synced');
      expect(['synced', 'skipped']).toContain(outcomes[1]);
    });
  });

  describe('when two counts of one location follow each other in one run', () => {
    it('computes the second against the stock the first left, with one inventory read', async () => {
      const start = onHand('N-02', 'SKU-0007');
      await beginStockSyncRun(world.redis, world.keys);
      const calls = world.calls.length;
      await world.add('stock-counts', [countRecord('CNT-N02-25', 'N-02', '2026-11-25', [['SKU-0007', start + 5]])]);
      await world.idle();
      await world.add('stock-counts', [countRecord('CNT-N02-26', 'N-02', '2026-11-26', [['SKU-0007', start + 2]])]);
      await world.idle();
      expect(onHand('N-02', 'SKU-0007')).toBe(start + 2);
      const variances = world.sandbox.admin.state().variances.filter((v) => v.facilityUrl === world.facility('N-02'));
      expect(variances.map((v) => v.inventoryItemVarianceList[0]!.quantityOnHandVar)).toEqual([5, -3]);
      expect(world.calls.slice(calls).filter((c) => c.path.endsWith('/api/inventoryitem'))).toHaveLength(1);
    });
  });
});
