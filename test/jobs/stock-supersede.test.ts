import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRecord } from '../helpers/count-record.js';
import { jobOf, testWorld, type TestWorld } from '../helpers/test-world.js';

describe('stock count sync', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await testWorld('stock-supersede', { streams: ['stock-counts', 'boms'], jobs: { varianceChunkSize: 2, attempts: 2 } });
    await world.deps.catalog.refresh();
  });
  afterAll(async () => {
    await world?.close();
  });

  const onHand = (location: string, productId: string) => world.sandbox.admin.stockOnHand(world.facility(location), world.product(productId));

  describe('when a count failed half-way and a newer count of its location arrives', () => {
    const older = countRecord('CNT-A02-OLD', 'A-02', '2026-11-21', [['SKU-0001', 1], ['SKU-0011', 2], ['SKU-0021', 3], ['SKU-0031', 4]]);
    const newer = countRecord('CNT-A02-NEW', 'A-02', '2026-11-22', [['SKU-0021', 30]]);
    let stockOf31: number;
    let firstFailure: string | undefined;

    beforeAll(async () => {
      stockOf31 = onHand('A-02', 'SKU-0031');
      // The first chunk applies; every later variance POST is refused until the older count gives up.
      world.sandbox.admin.setLatency({ ms: 30 });
      const armed = new Promise<void>((resolve) => {
        const t = setInterval(() => {
          if (world.sandbox.admin.counters().creates.variance >= 1) {
            world.sandbox.admin.setFaults([{ kind: 'status-503', method: 'POST', path: '/api/inventoryvariance$' }]);
            clearInterval(t);
            resolve();
          }
        }, 2);
      });
      await world.add('stock-counts', [older]);
      await armed;
      await world.idle();
      world.sandbox.admin.setFaults([]);
      world.sandbox.admin.setLatency(null);
      await world.add('stock-counts', [newer]);
      await world.idle();
      const failed = await jobOf(world, 'stock-counts', older.countId);
      firstFailure = failed.failedReason;
      await failed.retry();
      await world.idle();
    });

    it('fails the older count at first, with its first chunk applied', () => {
      expect(firstFailure).toMatch(/^\[TRANSIENT\]/);
      expect(onHand('A-02', 'SKU-0001')).toBe(1);
      expect(onHand('A-02', 'SKU-0011')).toBe(2);
    });

    it('applies the newer count over what the older one left', () => {
      expect(onHand('A-02', 'SKU-0021')).toBe(30);
    });

    it('never posts the rest of the older count, even when it is retried', async () => {
      expect(onHand('A-02', 'SKU-0031')).toBe(stockOf31);
      const job = await jobOf(world, 'stock-counts', older.countId);
      expect(job.returnvalue.outcome).toBe('skipped');
      expect(job.returnvalue.summary).toContain('superseded by newer count CNT-A02-NEW');
      expect(world.sandbox.admin.counters().creates.variance).toBe(2);
    });
  });

  describe('when a corrected count arrives under the same countId', () => {
    const first = countRecord('CNT-N03-FIX', 'N-03', '2026-11-21', [['SKU-0008', 5]]);
    const corrected = countRecord('CNT-N03-FIX', 'N-03', '2026-11-21', [['SKU-0008', 8]]);

    beforeAll(async () => {
      await world.add('stock-counts', [first]);
      await world.idle();
      await world.add('stock-counts', [corrected]);
      await world.idle();
    });

    it('applies the correction', () => {
      expect(onHand('N-03', 'SKU-0008')).toBe(8);
    });

    it('skips the first version when it is delivered again', async () => {
      const jobs = (await world.jobs('stock-counts')).filter((j) => (j.data.record as { countId: string }).countId === first.countId);
      const original = jobs.find((j) => (j.data.record as typeof first).items[0]!.quantity === 5)!;
      await original.remove();
      await world.add('stock-counts', [first]);
      await world.idle();
      const again = (await world.jobs('stock-counts')).find((j) => j.id === original.id)!;
      expect(again.returnvalue.outcome).toBe('skipped');
      expect(again.returnvalue.summary).toContain('corrected version');
      expect(onHand('N-03', 'SKU-0008')).toBe(8);
    });
  });
});
