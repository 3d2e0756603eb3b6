import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FindResult } from '../../src/ops/find.js';
import { countRecord } from '../helpers/count-record.js';
import { baseEnv, runCli } from './run-cli.js';
import { startStack, type Stack } from './stack.js';

const order = (
  orderId: string,
  orderDate: string | undefined,
  productId = 'MUG-BLUE',
  origin = 'Main Warehouse',
  location = 'Main Warehouse / A-01',
) => ({
  orderId,
  ...(orderDate ? { orderDate } : {}),
  origin,
  lines: [{ productId, quantity: 1, unitPrice: 12.5, location }],
});
const floors = { SYNC_ORDERS_SINCE: '2026-02-01', SYNC_COUNTS_SINCE: '2026-02-01' };

function fileWith(name: string, text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'isync-golive-')), name);
  writeFileSync(file, text);
  return file;
}

async function withStack(streams: Parameters<typeof startStack>[0], name: string, fn: (stack: Stack) => Promise<void>): Promise<void> {
  const stack = await startStack(streams, name);
  try {
    await fn(stack);
  } finally {
    await stack.close();
  }
}

async function find(stack: Stack, key: string, env: Record<string, string>): Promise<FindResult> {
  const r = await runCli(['find', key, '--json'], env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as FindResult;
}

describe.concurrent('going live', () => {
  describe('with go-live floors', () => {
    it('skips older orders and counts, counts them in the summary, exits 0, and find says why', () =>
      withStack(
        {
          orders: [order('OLD-1', '2026-01-15T10:00:00'), order('NEW-1', '2026-02-01T08:00:00'), order('NODATE-1', undefined)],
          'stock-counts': [countRecord('OLD-C', 'Main Warehouse / A-03', '2026-01-31', [['SKU-0010', 5]])],
        },
        'golive-sync',
        async (stack) => {
          const env = { ...stack.env, ...floors };
          const r = await runCli(['sync', '--once', '--stream', 'orders', '--stream', 'stock-counts'], env, { timeoutMs: 90_000 });
          expect(r.code, r.stderr).toBe(0);
          // RECORDS SYNCED ALREADY-MATCHED SKIPPED FAILED, and each kind's skip said in its own words.
          expect(r.stdout).toMatch(/orders\s+3\s+2\s+0\s+1\s+0\n/);
          expect(r.stdout).toMatch(/stock-counts\s+1\s+0\s+0\s+1\s+0\n/);
          expect(r.stdout).toContain(
            'orders: 1 record was skipped on purpose and not written: 1 before go-live (SYNC_ORDERS_SINCE 2026-02-01).',
          );
          expect(r.stdout).toContain(
            'stock-counts: 1 record was skipped on purpose and not written: 1 before go-live (SYNC_COUNTS_SINCE 2026-02-01).',
          );
          expect(r.stdout).not.toContain('superseded');
          expect(
            stack.sandbox.admin
              .state()
              .orders.map((o: { orderId: string }) => o.orderId)
              .sort(),
          ).toEqual(['NEW-1', 'NODATE-1']);
          expect(stack.sandbox.admin.requests().filter((q) => JSON.stringify(q).includes('OLD-'))).toEqual([]);
          expect(stack.sandbox.admin.state().variances).toHaveLength(0);

          const found = await find(stack, 'OLD-1', env);
          expect(found.jobs).toHaveLength(1);
          expect(found.jobs[0]).toMatchObject({
            state: 'completed',
            outcome: 'skipped',
            summary: expect.stringContaining('before go-live: orderDate 2026-01-15T10:00:00 is before SYNC_ORDERS_SINCE 2026-02-01'),
          });
          expect(found.entities).toEqual([]);
          const text = await runCli(['find', 'OLD-1'], env);
          expect(text.stdout).toContain('OLD-1 skipped, before go-live');
        },
      ));

    it('skips older counts in `import --process` too, and exits 0', () =>
      withStack({}, 'golive-import', async (stack) => {
        const counts = [
          countRecord('IMP-OLD', 'Main Warehouse / A-03', '2026-01-31', [['SKU-0010', 5]]),
          countRecord('IMP-NEW', 'Main Warehouse / A-04', '2026-02-01', [['SKU-0010', 6]]),
        ];
        const r = await runCli(
          ['import', 'stock-counts', '-', '--process', '--json'],
          { ...stack.env, ...floors },
          { input: counts.map((c) => JSON.stringify(c)).join('\n') },
        );
        expect(r.code, r.stderr).toBe(0);
        expect(JSON.parse(r.stdout).summary.perStream['stock-counts']).toMatchObject({ queued: 2, completed: 2, skipped: 1, failed: [] });
        expect(stack.sandbox.admin.state().variances.map((v: { facilityUrl: string }) => v.facilityUrl)).toEqual([
          '/demo/api/facility/10004',
        ]);
      }));

    it('refuses a floor that is not a date, and exits 2', async () => {
      const r = await runCli(['sync', '--once'], { ...baseEnv(), SYNC_ORDERS_SINCE: '2026-13-01', SYNC_COUNTS_SINCE: 'yesterday' });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('SYNC_ORDERS_SINCE must be a calendar date YYYY-MM-DD');
      expect(r.stderr).toContain('SYNC_COUNTS_SINCE must be a calendar date YYYY-MM-DD');
    });
  });

  describe('with a mapping file', () => {
    it("syncs upstream names as the service's, and find shows both", () =>
      withStack({ orders: [order('MAP-1', undefined, 'SKU-9', 'WH1', 'WH1 / A-01')] }, 'golive-map', async (stack) => {
        const env = {
          ...stack.env,
          MAPPING_FILE: fileWith('mapping.csv', 'kind,upstream,service\nproduct,SKU-9,MUG-BLUE\nfacility,WH1,Main Warehouse\n'),
        };
        const r = await runCli(['sync', '--once', '--stream', 'orders'], env, { timeoutMs: 90_000 });
        expect(r.code, r.stdout + r.stderr).toBe(0);
        const made = stack.sandbox.admin.state().orders.find((o: { orderId: string }) => o.orderId === 'MAP-1')!;
        expect(made.orderItemList.map((i: { productId: string }) => i.productId)).toEqual(['MUG-BLUE']);
        expect(made.originFacilityUrl).toBe('/demo/api/facility/10000');

        const found = await find(stack, 'MAP-1', env);
        expect(found.mapped).toEqual([
          { kind: 'facility', upstream: 'WH1', service: 'Main Warehouse' },
          { kind: 'facility', upstream: 'WH1 / A-01', service: 'Main Warehouse / A-01' },
          { kind: 'product', upstream: 'SKU-9', service: 'MUG-BLUE' },
        ]);
        const text = await runCli(['find', 'MAP-1'], env);
        expect(text.stdout).toMatch(/product\s+SKU-9\s+→ MUG-BLUE/);
        expect(text.stdout).toMatch(/facility\s+WH1\s+→ Main Warehouse/);
      }));

    it('stops at start, naming the line, when the JSON file is malformed', async () => {
      const file = fileWith('mapping.json', '{\n  "products": {\n    "SKU-9": "MUG-BLUE"\n    "SKU-8": "MUG-RED"\n  }\n}\n');
      const r = await runCli(['sync', '--once'], { ...baseEnv(), MAPPING_FILE: file });
      expect(r.code).toBe(2);
      expect(r.stderr.split('\n')).toContain(`MAPPING_FILE: ${file} line 4: is not valid JSON (column 5)`);
    });

    it('stops at start, naming the line, when a CSV line has the wrong number of columns', async () => {
      const file = fileWith('mapping.csv', 'product,SKU-9,MUG-BLUE\nfacility,WH1\n');
      const r = await runCli(['worker'], { ...baseEnv(), MAPPING_FILE: file });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`MAPPING_FILE: ${file} line 2: has 2 columns; expected 3: kind,upstream,service`);
    });
  });
});
