import { describe, expect, it } from 'vitest';
import { baseEnv, runCli } from './run-cli.js';
import { startStack, type Stack } from './stack.js';

const order = (n: number, productId = 'MUG-BLUE') => ({
  orderId: `T-${n}`,
  origin: 'Main Warehouse',
  lines: [{ productId, quantity: 1, unitPrice: 12.5, location: 'Main Warehouse / A-01' }],
});
const bom = { productId: 'SKU-0100', components: [{ productId: 'SKU-0101', quantity: 2 }] };

/** Runs `fn` with a stack of its own, closed after, so the tests of this file can run side by side. */
async function withStack(streams: Parameters<typeof startStack>[0], name: string, fn: (stack: Stack) => Promise<void>): Promise<void> {
  const stack = await startStack(streams, name);
  try {
    await fn(stack);
  } finally {
    await stack.close();
  }
}

describe.concurrent('sync --once', () => {
  describe('when every record syncs', () => {
    it('prints the per-stream summary and exits 0', () =>
      withStack({ orders: [order(1), order(2), order(1)], boms: [bom] }, 'sync-ok', async (stack) => {
        const r = await runCli(['sync', '--once'], stack.env);
        expect(r.code).toBe(0);
        expect(r.stdout).toContain('pulled orders: 2 new, 1 re-delivered, 0 invalid');
        expect(r.stdout).toMatch(/processing: \d+\/\d+/);
        expect(r.stdout).toMatch(/Synced in \d+\.\d s\./);
        // RECORDS SYNCED ALREADY-MATCHED SKIPPED FAILED: the re-delivery is one record read twice.
        expect(r.stdout).toMatch(/orders\s+2\s+2\s+0\s+0\s+0\n/);
        expect(r.stdout).toMatch(/boms\s+1\s+1\s+0\s+0\s+0\n/);
        expect(r.stdout).toContain('Every record synced.');
        expect(
          stack.sandbox.admin
            .state()
            .orders.map((o: { orderId: string }) => o.orderId)
            .sort(),
        ).toEqual(['T-1', 'T-2']);
      }));
  });

  describe('when some records are bad', () => {
    it('syncs the rest, lists each failure with its reason and job, and exits 1', () =>
      withStack(
        { orders: [order(1), order(2, 'NO-SUCH'), { orderId: 'T-3', origin: 'Main Warehouse', lines: [] }] },
        'sync-bad',
        async (stack) => {
          const r = await runCli(['sync', '--once', '--stream', 'orders'], stack.env);
          expect(r.code).toBe(1);
          expect(r.stdout).toMatch(/orders\s+3\s+1\s+0\s+0\s+2\n/);
          expect(r.stdout).toContain('2 records failed in this run:');
          expect(r.stdout).toMatch(/orders\s+T-2\s+\[BAD_RECORD\] record T-2: lines\.0\.productId: .*NO-SUCH.*orders-T-2-[0-9a-f]{12}/);
          expect(r.stdout).toMatch(/orders\s+T-3\s+\[BAD_RECORD\] record T-3: lines: must have at least one line/);
          expect(r.stdout).toMatch(/See why: inventory-sync jobs show orders-T-[23]-[0-9a-f]{12}\n/);
          // T-2 names a product the service lacks (a retry helps once it is added); T-3 is wrong in itself.
          expect(r.stdout).toMatch(/After fixing the cause: inventory-sync jobs retry orders-T-2-[0-9a-f]{12}\n/);
          expect(r.stdout).toContain('The other record is wrong in itself: a retry cannot help.');
        },
      ));

    it('answers --json with the summary, without progress lines', () =>
      withStack({ orders: [order(1), order(2, 'NO-SUCH')] }, 'sync-json', async (stack) => {
        const r = await runCli(['sync', '--once', '--json'], stack.env);
        expect(r.code).toBe(1);
        const s = JSON.parse(r.stdout);
        expect(s.ok).toBe(false);
        expect(typeof s.ms).toBe('number');
        expect(s.perStream.orders).toMatchObject({ queued: 2, duplicates: 0, invalid: 0, completed: 1 });
        expect(s.perStream.orders.failed).toEqual([
          {
            id: expect.stringMatching(/^orders-T-2-/),
            key: 'T-2',
            reason: expect.stringMatching(/^\[BAD_RECORD\] record T-2: lines\.0\.productId/),
          },
        ]);
        expect(s.perStream.orders).toMatchObject({ records: 2, synced: 1, unchanged: 0, skipped: 0, failedBefore: [], waiting: 0 });
        expect(s.perStream['stock-counts']).toMatchObject({ queued: 0, completed: 0, failed: [] });
      }));
  });

  describe('when a part cannot be reached', () => {
    it('exits 3 when the feed does not answer', () =>
      withStack({}, 'sync-nofeed', async (stack) => {
        const r = await runCli(['sync', '--once'], { ...stack.env, UPSTREAM_URL: 'http://127.0.0.1:1' }, { timeoutMs: 90_000 });
        expect(r.code).toBe(3);
        expect(r.stderr).toContain('no answer');
        expect(r.stderr).toContain('Check UPSTREAM_URL');
      }));

    it('exits 3 when the service does not answer', () =>
      withStack({}, 'sync-nosvc', async (stack) => {
        const r = await runCli(['sync', '--once'], { ...stack.env, INVENTORY_BASE_URL: 'http://127.0.0.1:1' }, { timeoutMs: 90_000 });
        expect(r.code).toBe(3);
        expect(r.stderr).toContain('the service could not be reached at http://127.0.0.1:1');
      }));

    it('exits 3 when the service refuses the credentials, naming the variables', () =>
      withStack({}, 'sync-401', async (stack) => {
        const r = await runCli(['sync', '--once'], { ...stack.env, INVENTORY_API_SECRET: 'wrong-secret' });
        expect(r.code).toBe(3);
        expect(r.stderr.trim()).toMatch(/^INVENTORY_API_KEY, INVENTORY_API_SECRET: the service at .* refused them \(HTTP 401\)/);
      }));
  });

  describe('when the configuration is incomplete', () => {
    it('exits 2 with one line per missing variable', async () => {
      const r = await runCli(['sync', '--once'], baseEnv());
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toEqual([
        'INVENTORY_BASE_URL: is required (see README, "Configuration")',
        'INVENTORY_ACCOUNT: is required (see README, "Configuration")',
        'INVENTORY_API_KEY: is required, or INVENTORY_API_KEY_FILE naming a file that holds it (see README, "Configuration")',
        'INVENTORY_API_SECRET: is required, or INVENTORY_API_SECRET_FILE naming a file that holds it (see README, "Configuration")',
        'UPSTREAM_URL: is required to pull the feed',
      ]);
    });

    it('exits 2 without --once', async () => {
      const r = await runCli(['sync'], baseEnv());
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('sync needs --once');
    });
  });
});
