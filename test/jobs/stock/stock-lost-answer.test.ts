import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRecord } from '../../helpers/count-record.js';
import { describeEachProfile, jobOf, testWorld, type TestWorld } from '../../helpers/test-world.js';

const VARIANCE_POST = { kind: 'apply-then-drop', method: 'POST', path: '/api/inventoryvariance$', times: 1 } as const;

describeEachProfile('stock count sync', (profile) => {
  describe('when the answer to a variance is lost after the service applied it', () => {
    let world: TestWorld;
    beforeAll(async () => {
      world = await testWorld('stock-lost', { streams: ['stock-counts', 'boms'], sandbox: { profile } });
      await world.deps.catalog.refresh();
      world.sandbox.admin.setFaults([VARIANCE_POST]);
      await world.add('stock-counts', [
        countRecord('CNT-LOST', 'A-06', '2026-11-21', [
          ['SKU-0005', 1],
          ['SKU-0015', 2],
          ['MUG-RED', 3],
        ]),
      ]);
      await world.idle();
    });
    afterAll(async () => {
      await world?.close();
    });

    it('applies the difference once', () => {
      const c = world.sandbox.admin.counters();
      expect(c.faults['apply-then-drop']).toBe(1);
      expect(c.creates.variance).toBe(1);
      const a06 = world.facility('A-06');
      expect(world.sandbox.admin.stockOnHand(a06, world.product('SKU-0005'))).toBe(1);
      expect(world.sandbox.admin.stockOnHand(a06, world.product('SKU-0015'))).toBe(2);
      expect(world.sandbox.admin.stockOnHand(a06, world.product('MUG-RED'))).toBe(3);
    });

    it('asks the service before posting again, and says so in the trace', async () => {
      const job = await jobOf(world, 'stock-counts', 'CNT-LOST');
      expect(job.returnvalue.outcome).toBe('synced');
      const notes = (await world.traces('stock-counts', String(job.id))).flatMap((t) => t.notes.map((n: { message: string }) => n.message));
      expect(notes.some((m) => /answer was lost/.test(m))).toBe(true);
      expect(notes.some((m) => /the service has it/.test(m))).toBe(true);
      const posts = (await world.traces('stock-counts', String(job.id))).flatMap((t) => t.calls).filter((c) => c.method === 'POST');
      expect(posts).toHaveLength(1);
    });
  });

  describe('when a large count is split into chunks and the middle chunk loses its answer', () => {
    let world: TestWorld;
    const items: Array<[string, number]> = [
      ['SKU-0001', 11],
      ['SKU-0002', 12],
      ['SKU-0004', 13],
      ['SKU-0005', 14],
      ['SKU-0007', 15],
    ];
    beforeAll(async () => {
      world = await testWorld('stock-chunks', { streams: ['stock-counts', 'boms'], jobs: { varianceChunkSize: 2 }, sandbox: { profile } });
      await world.deps.catalog.refresh();
      // Latency gives the watcher time to arm the fault between the first and the second chunk.
      world.sandbox.admin.setLatency({ ms: 60 });
      const armed = new Promise<void>((resolve) => {
        const t = setInterval(() => {
          if (world.sandbox.admin.counters().creates.variance >= 1) {
            world.sandbox.admin.setFaults([VARIANCE_POST]);
            clearInterval(t);
            resolve();
          }
        }, 2);
      });
      await world.add('stock-counts', [countRecord('CNT-BIG', 'N-03', '2026-11-21', items)]);
      await armed;
      await world.idle();
    });
    afterAll(async () => {
      await world?.close();
    });

    it('posts one variance per chunk, each applied once', () => {
      const c = world.sandbox.admin.counters();
      expect(c.faults['apply-then-drop']).toBe(1);
      expect(c.creates.variance).toBe(3);
      const variances = world.sandbox.admin.state().variances;
      expect(variances.map((v) => v.inventoryItemVarianceList.length)).toEqual([2, 2, 1]);
      const products = variances.flatMap((v) => v.inventoryItemVarianceList.map((i) => i.productUrl));
      expect(new Set(products).size).toBe(5);
    });

    it('converges to the counted quantities', () => {
      const n03 = world.facility('N-03');
      for (const [id, q] of items) expect(world.sandbox.admin.stockOnHand(n03, world.product(id))).toBe(q);
    });

    it('settles the lost chunk from the service instead of posting it again', async () => {
      const job = await jobOf(world, 'stock-counts', 'CNT-BIG');
      const notes = (await world.traces('stock-counts', String(job.id))).flatMap((t) => t.notes.map((n: { message: string }) => n.message));
      expect(notes.some((m) => /chunk 2\/3: the answer was lost/.test(m))).toBe(true);
      expect(notes.some((m) => /chunk 2\/3: the service has it/.test(m))).toBe(true);
    });
  });
});
