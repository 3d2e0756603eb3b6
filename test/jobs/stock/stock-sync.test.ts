import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxCounters } from '../../../src/sandbox/counters.js';
import type { SandboxState } from '../../../src/sandbox/sandbox-entities.js';
import { countRecord } from '../../helpers/count-record.js';
import { describeEachProfile, jobOf, testWorld, type TestWorld } from '../../helpers/test-world.js';

describeEachProfile('stock count sync', (profile) => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await testWorld('stock-sync', { streams: ['stock-counts', 'boms'], sandbox: { profile } });
    // Warm the catalog first: its collection GETs are not the counts' cost.
    await world.deps.catalog.refresh();
  });
  afterAll(async () => {
    await world?.close();
  });

  describe('when counts of several locations arrive in one run', () => {
    const counts = [
      countRecord('CNT-A01', 'Main Warehouse / A-01', '2026-11-21', [
        ['MUG-BLUE', 33],
        ['MUG-RED', 30],
        ['SKU-0010', 71],
      ]),
      countRecord('CNT-A02', 'A-02', '2026-11-21', [
        ['MUG-GREEN', 10],
        ['SKU-0001', 0],
        ['SKU-0003', 4],
      ]),
      countRecord('CNT-N01', 'North Depot / N-01', '2026-11-21', [['MUG-BLUE', 12]]),
      countRecord('CNT-A03', 'A-03', '2026-11-21', [['GIFT-SET', 0]]),
    ];
    let before: SandboxCounters;
    let start: SandboxState;
    let state: SandboxState;
    let callsBefore: number;

    beforeAll(async () => {
      start = world.sandbox.admin.state();
      before = world.sandbox.admin.counters();
      callsBefore = world.calls.length;
      await world.add('stock-counts', counts);
      await world.idle();
      state = world.sandbox.admin.state();
    });

    it('leaves every counted product at the counted quantity', () => {
      for (const c of counts) {
        const loc = world.facility(c.location.split(' / ').pop()!);
        for (const item of c.items) expect(world.sandbox.admin.stockOnHand(loc, world.product(item.productId))).toBe(item.quantity);
      }
    });

    it('sums stock split across lots before taking the difference', () => {
      const a01 = world.facility('A-01');
      const blue = world.product('MUG-BLUE');
      const rows = start.inventory.filter((r) => r.facilityUrl === a01 && r.productUrl === blue);
      expect(rows.length).toBeGreaterThan(1);
      const v = state.variances.find((x) => x.facilityUrl === a01)!;
      const line = v.inventoryItemVarianceList.find((i) => i.productUrl === blue)!;
      expect(line.quantityOnHandVar).toBe(33 - rows.reduce((s, r) => s + r.quantityOnHand, 0));
    });

    it('posts one variance per location that differs, carrying only the non-zero differences', () => {
      expect(world.sandbox.admin.counters().creates.variance - before.creates.variance).toBe(3);
      const a01 = state.variances.find((x) => x.facilityUrl === world.facility('A-01'))!;
      expect(a01.inventoryItemVarianceList.map((i) => i.productUrl).sort()).toEqual(
        [world.product('MUG-BLUE'), world.product('SKU-0010')].sort(),
      );
    });

    it('posts nothing for a count that matches the stock on hand', async () => {
      expect(state.variances.filter((v) => v.facilityUrl === world.facility('N-01'))).toHaveLength(0);
      const job = await jobOf(world, 'stock-counts', 'CNT-N01');
      expect(job.returnvalue.outcome).toBe('unchanged');
    });

    it('dates every variance at 19:00:00.000 of the count date, type FACILITY, committed, at the location', () => {
      expect(state.variances).toHaveLength(3);
      for (const v of state.variances) {
        expect(v.physicalInventoryDate).toBe('2026-11-21T19:00:00.000');
        expect(v.physicalInventoryTypeId).toBe('FACILITY');
        expect(v.statusId).toBe('PHSCL_INV_COMMITTED');
        for (const item of v.inventoryItemVarianceList) expect(item.facilityUrl).toBe(v.facilityUrl);
      }
    });

    it('reads the inventory item collection once for the whole run', () => {
      const reads = world.calls.slice(callsBefore).filter((c) => c.method === 'GET' && c.path.endsWith('/api/inventoryitem'));
      expect(reads).toHaveLength(1);
      expect(world.sandbox.admin.counters().byClass.collection - before.byClass.collection).toBe(1);
    });

    it('leaves products that were not counted alone', () => {
      const a01 = world.facility('A-01');
      const counted = new Set(counts[0]!.items.map((i) => world.product(i.productId)));
      const others = start.inventory.filter((r) => r.facilityUrl === a01 && !counted.has(r.productUrl));
      expect(others.length).toBeGreaterThan(0);
      for (const r of others) {
        const was = start.inventory
          .filter((x) => x.facilityUrl === a01 && x.productUrl === r.productUrl)
          .reduce((s, x) => s + x.quantityOnHand, 0);
        expect(world.sandbox.admin.stockOnHand(a01, r.productUrl)).toBe(was);
      }
    });

    describe('and one of them is delivered again', () => {
      it('recognises it as applied and makes no call', async () => {
        const job = await jobOf(world, 'stock-counts', 'CNT-A01');
        await job.remove();
        const calls = world.calls.length;
        await world.add('stock-counts', [counts[0]]);
        await world.idle();
        const again = await jobOf(world, 'stock-counts', 'CNT-A01');
        expect(again.returnvalue.outcome).toBe('unchanged');
        expect(again.returnvalue.summary).toMatch(/applied before/);
        expect(world.calls.length).toBe(calls);
      });
    });
  });

  describe('when a count is a bad record', () => {
    it('applies its other rows and fails the row of the unknown product alone, at once, naming it and its field', async () => {
      await world.add('stock-counts', [
        countRecord('CNT-BAD-1', 'A-04', '2026-11-21', [
          ['SKU-0004', 3],
          ['NO-SUCH-SKU', 1],
        ]),
      ]);
      await world.idle();
      expect((await jobOf(world, 'stock-counts', 'CNT-BAD-1')).returnvalue.outcome).toBe('synced');
      expect(world.sandbox.admin.stockOnHand(world.facility('A-04'), world.product('SKU-0004'))).toBe(3);
      const job = await jobOf(world, 'stock-counts', 'CNT-BAD-1~NO-SUCH-SKU');
      expect(job.failedReason).toBe(
        "[BAD_RECORD] record CNT-BAD-1~NO-SUCH-SKU: items.0.productId: no product NO-SUCH-SKU in the service's product collection",
      );
      expect(job.attemptsMade).toBe(1);
    });

    it('fails whole naming the first unknown product when it has no other row', async () => {
      await world.add('stock-counts', [
        countRecord('CNT-BAD-4', 'A-04', '2026-11-21', [
          ['NO-SUCH-SKU', 1],
          ['NO-SUCH-SKU-2', 2],
        ]),
      ]);
      await world.idle();
      const job = await jobOf(world, 'stock-counts', 'CNT-BAD-4');
      expect(job.failedReason).toBe(
        "[BAD_RECORD] record CNT-BAD-4: items.0.productId: no product NO-SUCH-SKU in the service's product collection (and 1 more unknown products)",
      );
    });

    it('fails naming the location when it is a magazine', async () => {
      await world.add('stock-counts', [countRecord('CNT-BAD-2', 'Main Warehouse', '2026-11-21', [['SKU-0004', 3]])]);
      await world.idle();
      const job = await jobOf(world, 'stock-counts', 'CNT-BAD-2');
      expect(job.failedReason).toMatch(/^\[BAD_RECORD\] record CNT-BAD-2: location: "Main Warehouse" is a magazine/);
    });

    it('fails naming a product counted twice', async () => {
      await world.add('stock-counts', [
        countRecord('CNT-BAD-3', 'A-04', '2026-11-21', [
          ['SKU-0004', 3],
          ['SKU-0004', 4],
        ]),
      ]);
      await world.idle();
      const job = await jobOf(world, 'stock-counts', 'CNT-BAD-3');
      expect(job.failedReason).toMatch(/items\.1\.productId: SKU-0004 is counted twice \(also items\.0\)/);
    });
  });
});
