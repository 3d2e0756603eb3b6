import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { syncedOnce } from '../helpers/order-records.js';
import { cliInProcess } from './cli-in-process.js';
import { runCli } from './run-cli.js';
import { startStack } from './stack.js';

function csvFile(name: string, rows: string[]): string {
  const file = join(mkdtempSync(join(tmpdir(), 'isync-csv-')), name);
  writeFileSync(file, `${rows.join('\r\n')}\r\n`);
  return file;
}

interface Failed {
  key: string;
  reason: string;
  id: string;
}

describe.concurrent('import of a CSV file', () => {
  it('syncs a count sheet, a count per countId, and fails only the count whose row says no number, naming its line', async () => {
    const stack = await startStack({}, 'csv-counts');
    try {
      const file = csvFile('counts.csv', [
        'countId,location,countDate,productId,quantity',
        'CNT-1,"Main Warehouse / A-01",2026-11-20,SKU-0010,68',
        'CNT-1,"Main Warehouse / A-01",2026-11-20,"MUG-BLUE",33',
        'CNT-2,"Main Warehouse / A-02",2026-11-20,SKU-0010,"twelve"',
      ]);
      const r = await runCli(['import', 'stock-counts', file, '--process', '--json'], stack.env);
      expect(r.code).toBe(1);
      const out = JSON.parse(r.stdout);
      expect(out.imported).toMatchObject({ records: 2, queued: 2, invalid: 1, malformed: 1 });
      const counts = out.summary.perStream['stock-counts'];
      expect(counts).toMatchObject({ queued: 2, completed: 1 });
      expect(counts.failed).toHaveLength(1);
      const bad = (counts.failed as Failed[])[0]!;
      expect(bad.key).toBe('CNT-2 (line 4)');
      expect(bad.reason).toBe('[BAD_RECORD] record CNT-2 (line 4): (line): line 4, column quantity: "twelve" is not a number');
      const onHand = (facility: string, product: string) =>
        stack.sandbox.admin.stockOnHand(`/demo/api/facility/${facility}`, `/demo/api/product/${product}`);
      expect(onHand('10001', 'SKU-0010')).toBe(68);
      expect(onHand('10001', 'MUG-BLUE')).toBe(33);
      expect(stack.sandbox.admin.state().variances).toHaveLength(1);
    } finally {
      await stack.close();
    }
  }, 180_000);

  it('syncs an order export, an order per orderId with a line per row, and fails the order whose rows disagree', async () => {
    const stack = await startStack({}, 'csv-orders');
    try {
      const file = csvFile('orders.csv', [
        'orderId,orderDate,origin,shipmentIdUser,productId,quantity,unitPrice,location',
        'CSV-1,2026-11-20T14:03:11,"Main Warehouse",,MUG-BLUE,2,12.50,"Main Warehouse / A-01"',
        'CSV-1,2026-11-20T14:03:11,"Main Warehouse",,SKU-0003,1,"4",A-02',
        'CSV-2,,Main Warehouse,CSV-2-S,MUG-BLUE,1,12.5,A-01',
        'CSV-2,,North Depot,CSV-2-S,SKU-0003,1,4,A-02',
      ]);
      const r = await runCli(['import', 'orders', file, '--process', '--json'], stack.env);
      expect(r.code).toBe(1);
      const out = JSON.parse(r.stdout);
      expect(out.summary.perStream.orders).toMatchObject({ queued: 2, completed: 1 });
      const bad = (out.summary.perStream.orders.failed as Failed[])[0]!;
      expect(bad.reason).toBe(
        '[BAD_RECORD] record CSV-2 (line 4): (line): line 5, column origin: "North Depot" differs from "Main Warehouse" on line 4, the first row of CSV-2',
      );
      const state = stack.sandbox.admin.state();
      expect(syncedOnce(state, ['CSV-1'])).toBe(true);
      expect(state.orders.filter((o) => o.orderId === 'CSV-2')).toHaveLength(0);
      // The record that failed on a cell keeps its key: listed under it, and found by it.
      const list = JSON.parse((await cliInProcess(['jobs', 'list', '--state', 'failed', '--json'], stack.env)).stdout);
      expect(list.jobs.map((j: { key: string | null }) => j.key)).toEqual(['CSV-2']);
      const found = await cliInProcess(['find', 'CSV-2', '--json'], stack.env);
      expect(found.code).toBe(0);
      const failedJob = JSON.parse(found.stdout).jobs[0];
      expect(failedJob).toMatchObject({ id: list.jobs[0].id, key: 'CSV-2', state: 'failed' });
      // The job shows the record as gathered from its rows.
      const show = JSON.parse((await runCli(['find', 'CSV-1', '--json'], stack.env)).stdout);
      expect(show.jobs[0].record).toEqual({
        orderId: 'CSV-1',
        orderDate: '2026-11-20T14:03:11',
        origin: 'Main Warehouse',
        lines: [
          { productId: 'MUG-BLUE', quantity: 2, unitPrice: 12.5, location: 'Main Warehouse / A-01' },
          { productId: 'SKU-0003', quantity: 1, unitPrice: 4, location: 'A-02' },
        ],
      });
    } finally {
      await stack.close();
    }
  }, 180_000);

  it('plans a CSV file with --dry-run, as the import would queue it, writing nothing', async () => {
    const stack = await startStack({}, 'csv-dry-run');
    try {
      const file = csvFile('orders.csv', [
        'orderId,origin,productId,quantity,unitPrice,location',
        'DRY-1,Main Warehouse,MUG-BLUE,1,12.5,A-01',
        'DRY-1,Main Warehouse,SKU-0003,2,4,A-02',
        'DRY-2,Main Warehouse,MUG-BLUE,x,12.5,A-01',
      ]);
      const r = await runCli(['import', 'orders', file, '--dry-run', '--json'], stack.env);
      expect(r.code, r.stderr).toBe(1);
      const plan = JSON.parse(r.stdout) as { records: Array<{ key: string; outcome: string; calls: unknown[]; error?: unknown }> };
      expect(plan.records.map((x) => [x.key, x.outcome])).toEqual([
        ['DRY-1', 'writes'],
        ['DRY-2 (line 4)', 'fails'],
      ]);
      expect(plan.records[0]!.calls.length).toBeGreaterThan(0);
      expect(JSON.stringify(plan.records[1])).toContain('line 4, column quantity: \\"x\\" is not a number');
      // For people, the failing record is named by its line once.
      const text = await cliInProcess(['import', 'orders', file, '--dry-run'], stack.env);
      expect(text.stdout).toMatch(/DRY-2 \(line 4\)\s+FAILS/);
      expect(text.stdout).not.toContain('(line 4) (line 4)');
      expect(stack.sandbox.admin.requests().filter((q) => q.method !== 'GET')).toEqual([]);
    } finally {
      await stack.close();
    }
  }, 180_000);

  it('reads CSV from stdin with --format csv', async () => {
    const stack = await startStack({}, 'csv-stdin');
    try {
      const input = 'countId,location,countDate,productId,quantity\nCNT-9,Main Warehouse / A-01,2026-11-20,SKU-0010,61\n';
      const r = await runCli(['import', 'stock-counts', '-', '--format', 'csv', '--process'], stack.env, { input });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('Imported 1 record of stock-counts');
      expect(stack.sandbox.admin.stockOnHand('/demo/api/facility/10001', '/demo/api/product/SKU-0010')).toBe(61);
      // Without --format, stdin is NDJSON: the header is no JSON.
      const ndjson = await runCli(['import', 'stock-counts', '-'], stack.env, { input });
      expect(ndjson.stdout).toContain('2 invalid');
    } finally {
      await stack.close();
    }
  }, 180_000);

  it('refuses, exit 2 with nothing queued, a file whose header lacks a column, a kind with no CSV layout, and another format', async () => {
    const stack = await startStack({}, 'csv-refused');
    try {
      const noPrice = csvFile('orders.csv', ['orderId,origin,productId,quantity,location', 'A,Main Warehouse,MUG-BLUE,1,A-01']);
      const boms = csvFile('boms.csv', ['productId,component,quantity', 'GIFT-SET,MUG-BLUE,2']);
      const [header, layout, format] = await Promise.all([
        runCli(['import', 'orders', noPrice], stack.env),
        runCli(['import', 'boms', boms], stack.env),
        runCli(['import', 'orders', '-', '--format', 'xml'], stack.env),
      ]);
      expect(header.code).toBe(2);
      expect(header.stderr).toContain(
        'line 1: the header lacks column unitPrice (columns: orderId,orderDate,origin,shipmentIdUser,productId,quantity,unitPrice,location)',
      );
      expect(layout.code).toBe(2);
      expect(layout.stderr).toContain(
        'boms has no CSV layout: import its records as NDJSON, or set a transform for the stream (TRANSFORMS, or --transform) that reads the rows',
      );
      expect(format.code).toBe(2);
      expect(format.stderr).toContain('--format xml: use ndjson or csv');
      const list = JSON.parse((await runCli(['jobs', 'list', '--json'], stack.env)).stdout);
      expect(list.jobs).toEqual([]);
    } finally {
      await stack.close();
    }
  }, 180_000);
});
