import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliInProcess } from '../../cli/cli-in-process.js';
import { startStack } from '../../cli/stack.js';
import { countRecord, stockAt } from '../../helpers/count-record.js';
import { addProduct } from '../../helpers/sandbox-products.js';
import { jobOf, testWorld, type TestWorld } from '../../helpers/test-world.js';

const HEADER = 'countId,location,countDate,productId,quantity';

function csvFile(rows: string[]): string {
  const file = join(mkdtempSync(join(tmpdir(), 'isync-rows-')), 'counts.csv');
  writeFileSync(file, `${[HEADER, ...rows].join('\r\n')}\r\n`);
  return file;
}

interface Failed {
  id: string;
  key: string;
  reason: string;
  retryHelps?: boolean;
}

describe('the rows of a stock count', () => {
  describe('when one of its five rows names a product the service lacks', () => {
    it('applies the four, fails the fifth alone by its line, and applies it once the product exists and it is retried', async () => {
      const stack = await startStack({}, 'count-rows-unknown');
      try {
        const A01 = '/demo/api/facility/10001';
        const at = (productUrl: string) => stack.sandbox.admin.stockOnHand(A01, productUrl);
        const file = csvFile([
          'CNT-57,Main Warehouse / A-01,2026-11-21,MUG-BLUE,33',
          'CNT-57,Main Warehouse / A-01,2026-11-21,MUG-RED,30',
          'CNT-57,Main Warehouse / A-01,2026-11-21,SKU-0010,71',
          'CNT-57,Main Warehouse / A-01,2026-11-21,SKU-0003,5',
          'CNT-57,Main Warehouse / A-01,2026-11-21,MUG-ORANGE,7',
        ]);
        const r = await cliInProcess(['import', 'stock-counts', file, '--process', '--json'], stack.env);
        expect(r.code).toBe(1);
        const counts = JSON.parse(r.stdout).summary.perStream['stock-counts'];
        expect(counts).toMatchObject({ completed: 1 });
        const failed = counts.failed as Failed[];
        // Not for good: once the product exists, a retry can help.
        expect(failed[0]!.retryHelps).not.toBe(false);
        expect(failed.map((f) => [f.key, f.reason])).toEqual([
          [
            'CNT-57~MUG-ORANGE',
            "[BAD_RECORD] record CNT-57~MUG-ORANGE: line 6, column productId: no product MUG-ORANGE in the service's product collection",
          ],
        ]);
        expect([at('/demo/api/product/MUG-BLUE'), at('/demo/api/product/20002')]).toEqual([33, 30]);
        expect([at('/demo/api/product/SKU-0010'), at('/demo/api/product/10003')]).toEqual([71, 5]);
        expect(stack.sandbox.admin.state().variances).toHaveLength(1);

        const orange = addProduct(stack.sandbox, 'MUG-ORANGE');
        expect(at(orange)).toBe(0);
        const retry = await cliInProcess(['jobs', 'retry', failed[0]!.id, '--json'], stack.env);
        expect(retry.code).toBe(0);
        const sync = await cliInProcess(['sync', '--once', '--stream', 'stock-counts', '--json'], stack.env);
        expect(sync.code).toBe(0);
        expect(at(orange)).toBe(7);
        // The four rows applied before are not posted again.
        expect(stack.sandbox.admin.state().variances).toHaveLength(2);
        expect(at('/demo/api/product/MUG-BLUE')).toBe(33);
      } finally {
        await stack.close();
      }
    }, 180_000);
  });

  describe('when a row of a count says no number', () => {
    it('applies the other rows and fails that row for good, naming its line and column', async () => {
      const stack = await startStack({}, 'count-rows-nan');
      try {
        const A02 = '/demo/api/facility/10002';
        const file = csvFile([
          'CNT-58,Main Warehouse / A-02,2026-11-21,SKU-0010,68',
          'CNT-58,Main Warehouse / A-02,2026-11-21,MUG-BLUE,"twelve"',
          'CNT-58,Main Warehouse / A-02,2026-11-21,MUG-RED,30',
          'CNT-58,Main Warehouse / A-02,2026-11-21,SKU-0003,-3',
        ]);
        const r = await cliInProcess(['import', 'stock-counts', file, '--process', '--json'], stack.env);
        expect(r.code).toBe(1);
        const out = JSON.parse(r.stdout);
        expect(out.imported).toMatchObject({ records: 2, queued: 2, invalid: 1 });
        const counts = out.summary.perStream['stock-counts'];
        expect(counts).toMatchObject({ completed: 1 });
        const failed = counts.failed as Failed[];
        expect(failed.map((f) => [f.key, f.reason])).toEqual([
          [
            'CNT-58~MUG-BLUE (line 3)',
            '[BAD_RECORD] record CNT-58~MUG-BLUE (line 3): (line): line 3, column quantity: "twelve" is not a number',
          ],
          // A number that the count's shape refuses: split off by the count's job, named by its field and line.
          ['CNT-58~SKU-0003', '[BAD_RECORD] record CNT-58~SKU-0003: items.0.quantity: must be 0 or more (line 5)'],
        ]);
        expect(stack.sandbox.admin.stockOnHand(A02, '/demo/api/product/SKU-0010')).toBe(68);
        expect(stack.sandbox.admin.stockOnHand(A02, '/demo/api/product/20002')).toBe(30);
        // For good: a retry cannot help.
        expect(failed.map((f) => f.retryHelps)).toEqual([false, false]);
        expect(stack.sandbox.admin.state().variances).toHaveLength(1);
      } finally {
        await stack.close();
      }
    }, 180_000);
  });
});

describe('a row split off a count to wait for its product', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await testWorld('count-rows-split', { streams: ['stock-counts'] });
  });
  afterAll(async () => {
    await world?.close();
  });

  /** The split row's job, failed for its product; retried once the product exists. */
  async function retrySplit(key: string, productId: string): Promise<void> {
    const job = await jobOf(world, 'stock-counts', key);
    expect(job.failedReason).toContain(`no product ${productId} in the service's product collection`);
    await job.retry('failed');
    await world.idle();
  }

  it('is named by its record and field, and the count applies the rest', async () => {
    await world.add('stock-counts', [
      countRecord('CNT-S1', 'A-04', '2026-11-21', [
        ['SKU-0004', 3],
        ['MUG-ORANGE', 7],
      ]),
    ]);
    await world.idle();
    const count = await jobOf(world, 'stock-counts', 'CNT-S1');
    expect(count.returnvalue.outcome).toBe('synced');
    expect(count.returnvalue.summary).toContain('1 row waits for a product the service lacks as CNT-S1~MUG-ORANGE');
    expect(count.returnvalue.details?.splitOff).toEqual([{ countId: 'CNT-S1~MUG-ORANGE', productId: 'MUG-ORANGE' }]);
    expect(stockAt(world, 'A-04', 'SKU-0004')).toBe(3);
    const row = await jobOf(world, 'stock-counts', 'CNT-S1~MUG-ORANGE');
    expect(row.failedReason).toBe(
      "[BAD_RECORD] record CNT-S1~MUG-ORANGE: items.0.productId: no product MUG-ORANGE in the service's product collection",
    );
    expect(row.attemptsMade).toBe(1);
  });

  it('from NDJSON, a row whose quantity is no number or negative fails alone for good, naming its field', async () => {
    const raw = {
      countId: 'CNT-B1',
      location: 'A-02',
      countDate: '2026-11-21',
      items: [
        { productId: 'SKU-0020', quantity: 5 },
        { productId: 'SKU-0021', quantity: 'five' },
        { productId: 'SKU-0022', quantity: -2 },
      ],
    };
    await world.add('stock-counts', [raw]);
    await world.idle();
    const count = await jobOf(world, 'stock-counts', 'CNT-B1');
    expect(count.returnvalue.outcome).toBe('synced');
    expect(count.returnvalue.summary).toContain('2 rows fail alone, a bad row, as CNT-B1~SKU-0021, CNT-B1~SKU-0022');
    expect(stockAt(world, 'A-02', 'SKU-0020')).toBe(5);
    const reasons = await Promise.all(
      ['CNT-B1~SKU-0021', 'CNT-B1~SKU-0022'].map(async (k) => {
        const job = await jobOf(world, 'stock-counts', k);
        return [job.failedReason, job.attemptsMade];
      }),
    );
    expect(reasons).toEqual([
      ['[BAD_RECORD] record CNT-B1~SKU-0021: items.0.quantity: must be a number', 1],
      ['[BAD_RECORD] record CNT-B1~SKU-0022: items.0.quantity: must be 0 or more', 1],
    ]);
    const before = [stockAt(world, 'A-02', 'SKU-0021'), stockAt(world, 'A-02', 'SKU-0022')];
    // Delivered again: nothing new is queued, nothing posted.
    await (await jobOf(world, 'stock-counts', 'CNT-B1')).remove();
    await world.add('stock-counts', [raw]);
    await world.idle();
    expect((await jobOf(world, 'stock-counts', 'CNT-B1')).returnvalue.outcome).toBe('unchanged');
    expect((await world.jobs('stock-counts')).filter((j) => String(j.id).includes('CNT-B1~'))).toHaveLength(2);
    expect([stockAt(world, 'A-02', 'SKU-0021'), stockAt(world, 'A-02', 'SKU-0022')]).toEqual(before);
  });

  it('fails a count whose every row is bad as itself, naming the rows', async () => {
    await world.add('stock-counts', [
      { countId: 'CNT-B2', location: 'A-02', countDate: '2026-11-21', items: [{ productId: 'SKU-0023', quantity: 'x' }] },
    ]);
    await world.idle();
    expect((await jobOf(world, 'stock-counts', 'CNT-B2')).failedReason).toBe(
      '[BAD_RECORD] record CNT-B2: items.0.quantity: must be a number',
    );
  });

  it('is skipped when a count of a later date set its location and product meanwhile', async () => {
    await world.add('stock-counts', [
      countRecord('CNT-S2', 'A-05', '2026-11-21', [
        ['SKU-0005', 4],
        ['MUG-ORANGE', 7],
      ]),
    ]);
    await world.idle();
    const orange = addProduct(world.sandbox, 'MUG-ORANGE');
    await world.add('stock-counts', [countRecord('CNT-S3', 'A-05', '2026-11-22', [['MUG-ORANGE', 9]])]);
    await world.idle();
    expect(world.sandbox.admin.stockOnHand(world.facility('A-05'), orange)).toBe(9);
    await retrySplit('CNT-S2~MUG-ORANGE', 'MUG-ORANGE');
    const row = await jobOf(world, 'stock-counts', 'CNT-S2~MUG-ORANGE');
    expect(row.returnvalue.outcome).toBe('skipped');
    expect(row.returnvalue.summary).toContain('CNT-S3');
    expect(world.sandbox.admin.stockOnHand(world.facility('A-05'), orange)).toBe(9);
  });

  it('ranks as its count: a count of the same date that came after it keeps the product', async () => {
    await world.add('stock-counts', [
      countRecord('CNT-S4', 'A-06', '2026-11-21', [
        ['SKU-0006', 2],
        ['MUG-PURPLE', 7],
      ]),
    ]);
    await world.idle();
    const purple = addProduct(world.sandbox, 'MUG-PURPLE');
    await world.add('stock-counts', [countRecord('CNT-S5', 'A-06', '2026-11-21', [['MUG-PURPLE', 8]])]);
    await world.idle();
    expect(world.sandbox.admin.stockOnHand(world.facility('A-06'), purple)).toBe(8);
    await retrySplit('CNT-S4~MUG-PURPLE', 'MUG-PURPLE');
    const row = await jobOf(world, 'stock-counts', 'CNT-S4~MUG-PURPLE');
    expect(row.returnvalue.outcome).toBe('skipped');
    expect(row.returnvalue.summary).toContain('CNT-S5');
    expect(world.sandbox.admin.stockOnHand(world.facility('A-06'), purple)).toBe(8);
  });

  it('is applied when no newer count set its product', async () => {
    await world.add('stock-counts', [
      countRecord('CNT-S6', 'A-03', '2026-11-23', [
        ['SKU-0007', 1],
        ['MUG-PINK', 6],
      ]),
    ]);
    await world.idle();
    const pink = addProduct(world.sandbox, 'MUG-PINK');
    await retrySplit('CNT-S6~MUG-PINK', 'MUG-PINK');
    const row = await jobOf(world, 'stock-counts', 'CNT-S6~MUG-PINK');
    expect(row.returnvalue.outcome).toBe('synced');
    expect(world.sandbox.admin.stockOnHand(world.facility('A-03'), pink)).toBe(6);
    expect(stockAt(world, 'A-03', 'SKU-0007')).toBe(1);
  });
});

describe('the dry run of a count with bad rows', () => {
  it('says which rows would be applied, which would wait for their product, and which fail', async () => {
    const stack = await startStack({}, 'count-rows-dry');
    try {
      const file = csvFile([
        'CNT-59,Main Warehouse / A-03,2026-11-21,MUG-BLUE,4',
        'CNT-59,Main Warehouse / A-03,2026-11-21,MUG-ORANGE,7',
        'CNT-59,Main Warehouse / A-03,2026-11-21,MUG-RED,"x"',
      ]);
      const r = await cliInProcess(['import', 'stock-counts', file, '--dry-run', '--json'], stack.env);
      expect(r.code).toBe(1);
      const plan = JSON.parse(r.stdout) as { records: Array<{ key: string; outcome: string; summary: string; details?: any }> };
      expect(plan.records.map((x) => [x.key, x.outcome])).toEqual([
        ['CNT-59~MUG-RED (line 4)', 'fails'],
        ['CNT-59', 'writes'],
      ]);
      const count = plan.records[1]!;
      expect(count.summary).toBe(
        'count CNT-59 at Main Warehouse / A-03: 1 difference in 1 variance; ' +
          '1 row would wait for a product the service lacks as CNT-59~MUG-ORANGE (line 3)',
      );
      expect(count.details.lines.map((l: { productId: string }) => l.productId)).toEqual(['MUG-BLUE']);
      expect(count.details.splitOff).toEqual([{ countId: 'CNT-59~MUG-ORANGE', productId: 'MUG-ORANGE', line: 3 }]);
      expect(plan.records[0]!.summary).toContain('line 4, column quantity: "x" is not a number');
      expect(stack.sandbox.admin.state().variances).toHaveLength(0);
    } finally {
      await stack.close();
    }
  }, 180_000);
});
