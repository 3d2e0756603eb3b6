import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stockKeys } from '../../../jobs/stock/stock-keys.js';
import { countRecord, failCountAfter, leftToNewer, notesOf, postedLines, stockAt } from '../../helpers/count-record.js';
import { describeEachProfile, jobOf, testWorld, type TestWorld } from '../../helpers/test-world.js';

type Count = ReturnType<typeof countRecord>;

/** Unfinished counts (a failed attempt left their plan open) and the newer or older counts that meet them. */
describeEachProfile('stock count sync', (profile) => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await testWorld('stock-supersede', {
      streams: ['stock-counts', 'boms'],
      jobs: { varianceChunkSize: 2, attempts: 2 },
      sandbox: { profile },
    });
    await world.deps.catalog.refresh();
  });
  afterAll(async () => {
    await world?.close();
  });

  const variancesAt = (loc: string) => world.sandbox.admin.state().variances.filter((v) => v.facilityUrl === world.facility(loc)).length;
  const failAfter = (count: Count, after: number) => failCountAfter(world, count, after);

  async function addAndRetry(then: Count, retry: Count) {
    await world.add('stock-counts', [then]);
    await world.idle();
    await (await jobOf(world, 'stock-counts', retry.countId)).retry();
    await world.idle();
  }

  describe('when a count failed half-way and a newer count of its location arrives', () => {
    const older = countRecord('CNT-A02-OLD', 'A-02', '2026-11-21', [
      ['SKU-0001', 1],
      ['SKU-0011', 2],
      ['SKU-0021', 3],
      ['SKU-0031', 4],
    ]);
    const newer = countRecord('CNT-A02-NEW', 'A-02', '2026-11-22', [['SKU-0021', 30]]);
    let firstFailure: string | undefined;
    beforeAll(async () => {
      firstFailure = await failAfter(older, 1);
      await addAndRetry(newer, older);
    });

    it('fails the older count at first, with its first chunk applied', () => {
      expect(firstFailure).toMatch(/^\[TRANSIENT\]/);
      expect(stockAt(world, 'A-02', 'SKU-0001')).toBe(1);
      expect(stockAt(world, 'A-02', 'SKU-0011')).toBe(2);
    });

    it('applies the newer count over what the older one left', () => {
      expect(stockAt(world, 'A-02', 'SKU-0021')).toBe(30);
    });

    it('posts the rest of the older count once it is retried, without the product the newer one set', async () => {
      expect(stockAt(world, 'A-02', 'SKU-0031')).toBe(4);
      expect(postedLines(world, 'A-02').get('SKU-0021')).toHaveLength(1);
      expect(variancesAt('A-02')).toBe(3);
      const job = await jobOf(world, 'stock-counts', older.countId);
      expect(job.returnvalue.outcome).toBe('synced');
      expect(leftToNewer(job.returnvalue)).toEqual({ 'CNT-A02-NEW': ['SKU-0021'] });
      expect(await notesOf(world, (await jobOf(world, 'stock-counts', newer.countId)).id)).toContain(
        'count CNT-A02-OLD (2026-11-21) at Main Warehouse / A-02 had unposted lines',
      );
    });
  });

  describe('when a count that posted nothing is wholly covered by a newer one', () => {
    const older = countRecord('CNT-A06-OLD', 'A-06', '2026-11-21', [
      ['SKU-0042', 1],
      ['SKU-0052', 2],
    ]);
    const newer = countRecord('CNT-A06-NEW', 'A-06', '2026-11-23', [
      ['SKU-0042', 41],
      ['SKU-0052', 51],
      ['SKU-0062', 61],
    ]);
    beforeAll(async () => {
      await failAfter(older, 0);
      await addAndRetry(newer, older);
    });

    it('skips the older count on its retry, naming the newer one, and posts only the newer', async () => {
      expect(['SKU-0042', 'SKU-0052', 'SKU-0062'].map((p) => stockAt(world, 'A-06', p))).toEqual([41, 51, 61]);
      expect(variancesAt('A-06')).toBe(2);
      const r = (await jobOf(world, 'stock-counts', older.countId)).returnvalue;
      expect(r.outcome).toBe('skipped');
      expect(r.summary).toContain('set by a newer count there (CNT-A06-NEW of 2026-11-23)');
      expect(await world.redis.smembers(stockKeys(world.keys).open(world.facility('A-06')))).toEqual([]);
    });
  });

  describe('when an older count arrives while a newer one is unfinished', () => {
    const newer = countRecord('CNT-N04-NEW', 'N-04', '2026-11-23', [
      ['SKU-0043', 10],
      ['SKU-0053', 20],
    ]);
    const older = countRecord('CNT-N04-OLD', 'N-04', '2026-11-22', [
      ['SKU-0053', 99],
      ['SKU-0063', 30],
    ]);
    beforeAll(async () => {
      await failAfter(newer, 0);
      await addAndRetry(older, newer);
    });

    it('leaves the products the newer one is setting to it, and applies the others', async () => {
      expect(['SKU-0043', 'SKU-0053', 'SKU-0063'].map((p) => stockAt(world, 'N-04', p))).toEqual([10, 20, 30]);
      expect(postedLines(world, 'N-04').get('SKU-0053')).toHaveLength(1);
      expect(leftToNewer((await jobOf(world, 'stock-counts', older.countId)).returnvalue)).toEqual({ 'CNT-N04-NEW': ['SKU-0053'] });
      expect((await jobOf(world, 'stock-counts', newer.countId)).returnvalue.outcome).toBe('synced');
    });
  });
});
