import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FindResult } from '../../src/ops/find.js';
import { countRecord } from '../helpers/count-record.js';
import { orderRecord } from '../helpers/order-records.js';
import { runCli } from './run-cli.js';
import { startStack, type Stack } from './stack.js';

const order = orderRecord('F-1', [{ productId: 'MUG-BLUE', quantity: 2, unitPrice: 12.5, location: 'Main Warehouse / A-01' }]);
// The same order corrected after it synced: a new job, refused because the order is completed already.
const orderCorrected = orderRecord('F-1', [{ productId: 'MUG-BLUE', quantity: 3, unitPrice: 12.5, location: 'Main Warehouse / A-01' }]);
const count = countRecord('C-F1', 'Main Warehouse / A-02', '2026-11-20', [['SKU-0002', 50]]);
const countCorrected = countRecord('C-F1', 'Main Warehouse / A-02', '2026-11-20', [['SKU-0002', 47]]);
const bom = { productId: 'SKU-0100', components: [{ productId: 'SKU-0101', quantity: 2 }] };

async function find(stack: Stack, key: string): Promise<FindResult> {
  const r = await runCli(['find', key, '--json'], stack.env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as FindResult;
}

describe('find', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ orders: [order], 'stock-counts': [count], boms: [bom] }, 'find');
    await runCli(['sync', '--once'], stack.env, { timeoutMs: 90_000 });
    // The corrections come in a later delivery.
    stack.feed.append('orders', [orderCorrected]);
    stack.feed.append('stock-counts', [countCorrected]);
    await runCli(['sync', '--once'], stack.env, { timeoutMs: 90_000 });
  }, 120_000);
  afterAll(() => stack?.close());

  describe('when given an orderId whose record was corrected', () => {
    it('answers both versions with their states and calls, and the order and shipment it made', async () => {
      const r = await find(stack, 'F-1');
      expect(r.jobs.map((j) => [j.stream, j.version, j.latest])).toEqual([
        ['orders', 1, false],
        ['orders', 2, true],
      ]);
      expect(new Set(r.jobs.map((j) => j.id)).size).toBe(2);
      const [first, second] = r.jobs;
      expect(first).toMatchObject({ state: 'completed', record: order });
      expect(first!.attempts[0]!.calls.map((c) => c.method)).toEqual(['POST', 'POST', 'POST', 'POST']);
      expect(second).toMatchObject({ state: 'failed', record: orderCorrected, error: { code: expect.any(String) } });
      expect(second!.error!.message).toContain('F-1');
      const state = stack.sandbox.admin.state();
      const made = state.orders.find((o: { orderId: string }) => o.orderId === 'F-1')!;
      const shipment = state.shipments.find((s: { primaryOrderUrl: string }) => s.primaryOrderUrl === made.orderUrl)!;
      expect(r.entities).toEqual([
        { kind: 'order', url: made.orderUrl, source: first!.id },
        { kind: 'shipment', url: shipment.shipmentUrl, source: first!.id },
      ]);
      expect(r.progress.order).toMatchObject({ step: 'completed', orderUrl: made.orderUrl });
    });

    it('prints a table of the versions and entities', async () => {
      const r = await runCli(['find', 'F-1'], stack.env);
      expect(r.code).toBe(0);
      // The first version is what the service holds; the correction failed at once (not retried: 1 attempt, final).
      expect(r.stdout).toMatch(/orders-F-1-[0-9a-f]{12}\s+orders\s+v1 \(in force\)\s+completed\s+1\s+4\s/);
      expect(r.stdout).toMatch(/orders-F-1-[0-9a-f]{12}\s+orders\s+v2 \(failed\)\s+failed\s+1 \(failed for good\)/);
      expect(r.stdout).toMatch(/order\s+\/demo\/api\/order\/F-1\s+orders-F-1-/);
      expect(r.stdout).toContain('inventory-sync jobs retry orders-F-1-');
    });
  });

  describe('when given a countId whose record was corrected', () => {
    it('answers both versions and the variances they posted', async () => {
      const r = await find(stack, 'C-F1');
      expect(r.jobs.map((j) => [j.stream, j.version, j.state])).toEqual([
        ['stock-counts', 1, 'completed'],
        ['stock-counts', 2, 'completed'],
      ]);
      const variances = stack.sandbox.admin.state().variances.map((v: { physicalInventoryUrl: string }) => v.physicalInventoryUrl);
      expect(variances).toHaveLength(2);
      expect(r.entities.map((e) => e.kind)).toEqual(['variance', 'variance']);
      expect(r.entities.map((e) => e.url).sort()).toEqual([...variances].sort());
      expect(r.progress.count).toMatchObject({ state: 'applied', countDate: '2026-11-20' });
    });
  });

  describe('when given the productId of a BOM', () => {
    it('answers its job and the product it changed', async () => {
      const r = await find(stack, 'SKU-0100');
      expect(r.jobs).toHaveLength(1);
      expect(r.jobs[0]).toMatchObject({ stream: 'boms', state: 'completed', version: 1, latest: true });
      const product = stack.sandbox.admin.state().products.find((p: { productId: string }) => p.productId === 'SKU-0100')!;
      expect(r.entities).toEqual([{ kind: 'product', url: product.productUrl, source: r.jobs[0]!.id }]);
    });
  });

  describe('when the record came through an import', () => {
    it('finds the job its import batch became', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'isync-find-'));
      const file = join(dir, 'orders.ndjson');
      writeFileSync(file, `${JSON.stringify(orderRecord('F-IMP'))}\n`);
      const imported = await runCli(['import', 'orders', file, '--process'], stack.env);
      expect(imported.code, imported.stderr).toBe(0);
      const r = await find(stack, 'F-IMP');
      expect(r.jobs).toHaveLength(1);
      expect(r.jobs[0]).toMatchObject({ stream: 'orders', state: 'completed', source: 'import' });
      expect(r.entities.map((e) => e.kind)).toEqual(['order', 'shipment']);
    });
  });

  describe('when the key is unknown', () => {
    it('says so and exits 1', async () => {
      const r = await runCli(['find', 'F-10'], stack.env);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`Nothing known of F-10 under prefix ${stack.prefix}`);
    });
  });
});
