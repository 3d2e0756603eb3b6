import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { beginStockSyncRun } from '../../../jobs/stock/stock-run.js';
import { countRecord, leftToNewer, notesOf, postedLines, stockAt, syncOneByOne } from '../../helpers/count-record.js';
import { describeEachProfile, jobOf, testWorld, type TestWorld } from '../../helpers/test-world.js';

type Count = ReturnType<typeof countRecord>;

describeEachProfile('stock count order per (location, product)', (profile) => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await testWorld('stock-order', { streams: ['stock-counts', 'boms'], sandbox: { profile } });
    await world.deps.catalog.refresh();
  });
  afterAll(async () => {
    await world?.close();
  });

  const oneByOne = (...counts: Count[]) => syncOneByOne(world, ...counts);
  const resultOf = async (countId: string) => (await jobOf(world, 'stock-counts', countId)).returnvalue;

  describe('when two counts of one location list disjoint products', () => {
    for (const [order, loc] of [
      ['newer first', 'A-01'],
      ['older first', 'A-03'],
    ] as const) {
      it(`applies both, ${order}`, async () => {
        const older = countRecord(`CNT-${loc}-MON`, loc, '2026-11-16', [
          ['SKU-0101', 41],
          ['SKU-0102', 42],
        ]);
        const newer = countRecord(`CNT-${loc}-WED`, loc, '2026-11-18', [['SKU-0103', 43]]);
        await (order === 'newer first' ? oneByOne(newer, older) : oneByOne(older, newer));
        expect([stockAt(world, loc, 'SKU-0101'), stockAt(world, loc, 'SKU-0102'), stockAt(world, loc, 'SKU-0103')]).toEqual([41, 42, 43]);
        for (const c of [older, newer]) {
          const r = await resultOf(c.countId);
          expect(r.outcome).toBe('synced');
          expect(r.details?.leftToNewer).toBeUndefined();
        }
      });
    }
  });

  describe('when two counts of one location share products', () => {
    const counts = (loc: string) => ({
      older: countRecord(`CNT-${loc}-21`, loc, '2026-11-21', [
        ['SKU-0111', 11],
        ['SKU-0112', 12],
        ['SKU-0113', 13],
      ]),
      newer: countRecord(`CNT-${loc}-22`, loc, '2026-11-22', [
        ['SKU-0112', 22],
        ['SKU-0113', 23],
        ['SKU-0114', 24],
      ]),
    });
    const finalStock = (loc: string) => ['SKU-0111', 'SKU-0112', 'SKU-0113', 'SKU-0114'].map((p) => stockAt(world, loc, p));

    it("lets the newer win the shared products and applies the older count's other products, newer first", async () => {
      const { older, newer } = counts('A-02');
      await oneByOne(newer, older);
      expect(finalStock('A-02')).toEqual([11, 22, 23, 24]);
      const r = await resultOf(older.countId);
      expect(r.outcome).toBe('synced');
      expect(leftToNewer(r)).toEqual({ [newer.countId]: ['SKU-0112', 'SKU-0113'] });
      expect(r.summary).toContain(`2 of its 3 products left to newer counts: SKU-0112, SKU-0113 to ${newer.countId} (2026-11-22)`);
      // The older count's variance carries only the product no newer count set.
      expect([...postedLines(world, 'A-02').entries()].filter(([, q]) => q.length > 1)).toEqual([]);
      const notes = await notesOf(world, (await jobOf(world, 'stock-counts', older.countId)).id);
      expect(notes).toContain(`products left to newer counts of Main Warehouse / A-02: SKU-0112, SKU-0113 to ${newer.countId}`);
    });

    it("lets the newer win the shared products and applies the older count's other products, older first", async () => {
      const { older, newer } = counts('A-05');
      await oneByOne(older, newer);
      expect(finalStock('A-05')).toEqual([11, 22, 23, 24]);
      expect(leftToNewer(await resultOf(older.countId))).toEqual({});
      expect((await resultOf(newer.countId)).outcome).toBe('synced');
    });
  });

  describe('when an older count arrives after a newer one was applied', () => {
    const newer = countRecord('CNT-A04-22', 'A-04', '2026-11-22', [
      ['SKU-0004', 10],
      ['SKU-0014', 3],
    ]);
    const covered = countRecord('CNT-A04-21', 'A-04', '2026-11-21', [
      ['SKU-0004', 99],
      ['SKU-0014', 98],
    ]);
    const partly = countRecord('CNT-A04-20', 'A-04', '2026-11-20', [
      ['SKU-0004', 50],
      ['SKU-0024', 7],
    ]);
    beforeAll(() => oneByOne(newer, covered, partly));

    it('leaves the newer count in force', () => {
      expect(stockAt(world, 'A-04', 'SKU-0004')).toBe(10);
      expect(stockAt(world, 'A-04', 'SKU-0014')).toBe(3);
    });

    it('skips an older count whose every product the newer set, naming the newer, with no call', async () => {
      const job = await jobOf(world, 'stock-counts', covered.countId);
      expect(job.returnvalue.outcome).toBe('skipped');
      expect(job.returnvalue.summary).toContain('every product it lists was set by a newer count there (CNT-A04-22 of 2026-11-22)');
      expect(leftToNewer(job.returnvalue)).toEqual({ 'CNT-A04-22': ['SKU-0004', 'SKU-0014'] });
      const [trace] = await world.traces('stock-counts', String(job.id));
      expect(trace!.calls).toHaveLength(0);
      expect(await notesOf(world, job.id)).toContain('CNT-A04-22');
    });

    it("applies an older count's other products and names the ones left to the newer", async () => {
      expect(stockAt(world, 'A-04', 'SKU-0024')).toBe(7);
      const job = await jobOf(world, 'stock-counts', partly.countId);
      expect(job.returnvalue.outcome).toBe('synced');
      expect(leftToNewer(job.returnvalue)).toEqual({ 'CNT-A04-22': ['SKU-0004'] });
      expect(await notesOf(world, job.id)).toContain('SKU-0004 to CNT-A04-22 (2026-11-22)');
    });
  });

  describe('when counts of one location sharing products arrive together out of order', () => {
    it('ends with the newest count of each product, whichever runs first', async () => {
      await world.add('stock-counts', [
        countRecord('CNT-N01-24', 'N-01', '2026-11-24', [
          ['SKU-0005', 7],
          ['SKU-0015', 8],
        ]),
        countRecord('CNT-N01-23', 'N-01', '2026-11-23', [
          ['SKU-0005', 70],
          ['SKU-0025', 9],
        ]),
        countRecord('CNT-N01-22', 'N-01', '2026-11-22', [
          ['SKU-0015', 80],
          ['SKU-0025', 90],
          ['SKU-0035', 10],
        ]),
      ]);
      await world.idle();
      expect(['SKU-0005', 'SKU-0015', 'SKU-0025', 'SKU-0035'].map((p) => stockAt(world, 'N-01', p))).toEqual([7, 8, 9, 10]);
      for (const id of ['CNT-N01-24', 'CNT-N01-23', 'CNT-N01-22']) expect((await resultOf(id)).outcome).toBe('synced');
    });
  });

  describe('when two counts of one date share a product', () => {
    it('keeps arrival order: the later one wins', async () => {
      await oneByOne(
        countRecord('CNT-N03-A', 'N-03', '2026-11-21', [['SKU-0006', 61]]),
        countRecord('CNT-N03-B', 'N-03', '2026-11-21', [['SKU-0006', 62]]),
      );
      expect(stockAt(world, 'N-03', 'SKU-0006')).toBe(62);
      expect(leftToNewer(await resultOf('CNT-N03-B'))).toEqual({});
    });
  });

  describe('when two counts of one location follow each other in one run', () => {
    it('computes the second against the stock the first left, with one inventory read', async () => {
      const start = stockAt(world, 'N-02', 'SKU-0007');
      await beginStockSyncRun(world.redis, world.keys);
      const calls = world.calls.length;
      await oneByOne(
        countRecord('CNT-N02-25', 'N-02', '2026-11-25', [['SKU-0007', start + 5]]),
        countRecord('CNT-N02-26', 'N-02', '2026-11-26', [['SKU-0007', start + 2]]),
      );
      expect(stockAt(world, 'N-02', 'SKU-0007')).toBe(start + 2);
      expect(postedLines(world, 'N-02').get('SKU-0007')).toEqual([5, -3]);
      expect(world.calls.slice(calls).filter((c) => c.path.endsWith('/api/inventoryitem'))).toHaveLength(1);
    });
  });
});
