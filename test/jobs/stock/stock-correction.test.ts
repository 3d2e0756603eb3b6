import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stockKeys } from '../../../jobs/stock/stock-keys.js';
import { countRecord, failCountAfter, jobOfRecord, leftToNewer, postedLines, stockAt, syncOneByOne } from '../../helpers/count-record.js';
import { describeEachProfile, testWorld, type TestWorld } from '../../helpers/test-world.js';

type Count = ReturnType<typeof countRecord>;

/** A corrected record under the same countId replaces the first version (docs/stock-sync.md, "Repeats"). */
describeEachProfile('stock count corrections', (profile) => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await testWorld('stock-correction', {
      streams: ['stock-counts', 'boms'],
      jobs: { varianceChunkSize: 2, attempts: 2 },
      sandbox: { profile },
    });
    await world.deps.catalog.refresh();
  });
  afterAll(async () => {
    await world?.close();
  });

  const oneByOne = (...counts: Count[]) => syncOneByOne(world, ...counts);
  const resultOf = async (c: Count) => (await jobOfRecord(world, c)).returnvalue;

  describe('when a corrected count arrives under the same countId', () => {
    const first = countRecord('CNT-N03-FIX', 'N-03', '2026-11-21', [['SKU-0008', 5]]);
    const corrected = countRecord('CNT-N03-FIX', 'N-03', '2026-11-21', [['SKU-0008', 8]]);
    beforeAll(() => oneByOne(first, corrected));

    it('applies the correction', () => {
      expect(stockAt(world, 'N-03', 'SKU-0008')).toBe(8);
    });

    it('skips the first version when it is delivered again', async () => {
      const original = await jobOfRecord(world, first);
      await original.remove();
      await oneByOne(first);
      const again = await jobOfRecord(world, first);
      expect(again.returnvalue.outcome).toBe('skipped');
      expect(again.returnvalue.summary).toContain('corrected version');
      expect(stockAt(world, 'N-03', 'SKU-0008')).toBe(8);
    });
  });

  describe('when a newer count set one of its products before the correction came', () => {
    const first = countRecord('CNT-A01-FIX', 'A-01', '2026-11-21', [
      ['SKU-0101', 5],
      ['SKU-0102', 6],
    ]);
    const newer = countRecord('CNT-A01-NEW', 'A-01', '2026-11-22', [['SKU-0102', 60]]);
    const corrected = countRecord('CNT-A01-FIX', 'A-01', '2026-11-21', [
      ['SKU-0101', 7],
      ['SKU-0102', 8],
    ]);
    beforeAll(() => oneByOne(first, newer, corrected));

    it('corrects only the product no newer count set, and names the other', async () => {
      expect(stockAt(world, 'A-01', 'SKU-0101')).toBe(7);
      expect(stockAt(world, 'A-01', 'SKU-0102')).toBe(60);
      const r = await resultOf(corrected);
      expect(r.outcome).toBe('synced');
      expect(leftToNewer(r)).toEqual({ 'CNT-A01-NEW': ['SKU-0102'] });
    });
  });

  describe('when the first version failed half-way', () => {
    const first = countRecord('CNT-A03-FIX', 'A-03', '2026-11-21', [
      ['SKU-0121', 1],
      ['SKU-0122', 2],
      ['SKU-0123', 3],
      ['SKU-0124', 4],
    ]);
    const corrected = countRecord('CNT-A03-FIX', 'A-03', '2026-11-21', [
      ['SKU-0121', 11],
      ['SKU-0123', 13],
    ]);
    const older = countRecord('CNT-A03-OLD', 'A-03', '2026-11-20', [
      ['SKU-0123', 55],
      ['SKU-0124', 77],
    ]);
    let before124: number;
    beforeAll(async () => {
      before124 = stockAt(world, 'A-03', 'SKU-0124');
      await failCountAfter(world, first, 1);
      await oneByOne(corrected);
      await (await jobOfRecord(world, first)).retry();
      await world.idle();
    });

    it('applies the correction and never posts the unposted lines of the first version', () => {
      expect(['SKU-0121', 'SKU-0122', 'SKU-0123'].map((p) => stockAt(world, 'A-03', p))).toEqual([11, 2, 13]);
      expect(stockAt(world, 'A-03', 'SKU-0124')).toBe(before124);
      expect(postedLines(world, 'A-03').get('SKU-0124')).toBeUndefined();
    });

    it('skips the first version on its retry', async () => {
      expect((await resultOf(first)).summary).toContain('corrected version');
    });

    it('gives the dropped product back: an older count may set it, but not what the correction set', async () => {
      await oneByOne(older);
      expect(stockAt(world, 'A-03', 'SKU-0124')).toBe(77);
      expect(stockAt(world, 'A-03', 'SKU-0123')).toBe(13);
      expect(leftToNewer(await resultOf(older))).toEqual({ 'CNT-A03-FIX': ['SKU-0123'] });
    });
  });

  describe('when the correction moves an unfinished count to another location', () => {
    const first = countRecord('CNT-MOVE', 'N-01', '2026-11-21', [
      ['SKU-0131', 1],
      ['SKU-0132', 2],
      ['SKU-0133', 3],
    ]);
    const corrected = countRecord('CNT-MOVE', 'N-02', '2026-11-21', [['SKU-0131', 21]]);
    let before133: number;
    beforeAll(async () => {
      before133 = stockAt(world, 'N-01', 'SKU-0133');
      await failCountAfter(world, first, 1);
      await oneByOne(corrected);
    });

    it('applies the correction where it now says, and drops the old plan at the old location', async () => {
      expect(stockAt(world, 'N-02', 'SKU-0131')).toBe(21);
      expect(stockAt(world, 'N-01', 'SKU-0133')).toBe(before133);
      expect(await world.redis.smembers(stockKeys(world.keys).open(world.facility('N-01')))).toEqual([]);
      expect((await resultOf(corrected)).outcome).toBe('synced');
    });
  });
});
