import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DryRunPlan } from '../../src/app/dry-run.js';
import { demoFeed } from '../../src/demo/demo-feed.js';
import { STREAMS } from '../../jobs/kinds.js';
import { expectOnlyCachesUnder, loggedWrites, plannedWrites } from '../helpers/planned-calls.js';
import { SANDBOX_PROFILES } from '../helpers/test-world.js';
import { runCli } from './run-cli.js';
import { startStack, type Stack } from './stack.js';

const SLOW = { timeoutMs: 120_000 };

async function withStack(
  streams: Parameters<typeof startStack>[0],
  name: string,
  profile: (typeof SANDBOX_PROFILES)[number],
  fn: (stack: Stack) => Promise<void>,
): Promise<void> {
  const stack = await startStack(streams, name, { profile });
  try {
    await fn(stack);
  } finally {
    await stack.close();
  }
}

async function dryRunJson(stack: Stack, args: string[]): Promise<{ code: number | null; plan: DryRunPlan }> {
  const r = await runCli([...args, '--dry-run', '--json'], stack.env, SLOW);
  if (r.code !== 0 && r.code !== 1) throw new Error(`dry run exited ${r.code}: ${r.stderr}`);
  return { code: r.code, plan: JSON.parse(r.stdout) as DryRunPlan };
}

/** Nothing of a run is left: no cursor, no progress, no stock mark, no job; the service saw only reads. */
async function expectNothingWritten(stack: Stack, logFrom = 0): Promise<void> {
  expect(
    stack.sandbox.admin
      .requests()
      .slice(logFrom)
      .filter((r) => r.method !== 'GET'),
  ).toEqual([]);
  await expectOnlyCachesUnder(stack.redis, stack.prefix);
}

function ndjson(records: unknown[]): string {
  const file = join(mkdtempSync(join(tmpdir(), 'isync-dry-')), 'orders.ndjson');
  writeFileSync(file, `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
  return file;
}

const order = (n: number, productId = 'MUG-BLUE') => ({
  orderId: `DRY-${n}`,
  orderDate: '2026-11-21T10:00:00',
  origin: 'Main Warehouse',
  lines: [{ productId, quantity: n, unitPrice: 12.5, location: 'Main Warehouse / A-01' }],
});

describe.concurrent.each(SANDBOX_PROFILES)('dry run (%s profile)', (profile) => {
  describe('sync --once --dry-run of the demo feed', () => {
    it(
      'plans every record reading only, then the real run sends exactly the planned writes; a re-delivery after it is already synced',
      { timeout: 300_000 },
      () =>
        withStack(demoFeed(), `dry-sync-${profile}`, profile, async (stack) => {
          const feed = demoFeed();
          const { code, plan } = await dryRunJson(stack, ['sync', '--once']);
          // The demo feed carries bad records: they are listed, and the dry run exits 1 as the real run does.
          expect(code).toBe(1);
          await expectNothingWritten(stack);
          for (const s of STREAMS) expect(await stack.redis.get(`${stack.prefix}:cursor:${s}`)).toBeNull();
          expect(plan.records.map((r) => r.stream)).toEqual(STREAMS.flatMap((s) => feed[s]!.map(() => s)));
          expect(plan.sources.map((s) => [s.stream, s.from, s.cursor, s.records])).toEqual(
            STREAMS.map((s) => [s, 'feed', null, feed[s]!.length]),
          );
          const bad = plan.records.filter((r) => r.outcome === 'fails').map((r) => [r.key, r.error?.code]);
          expect(bad).toEqual([
            ['WEB-1021', 'BAD_RECORD'],
            ['WEB-1022', 'BAD_RECORD'],
            ['WEB-1023', 'BAD_RECORD'],
            ['CNT-2026-11-20-Z99', 'BAD_RECORD'],
          ]);
          expect(plan.records.find((r) => r.key === 'WEB-1021')?.error?.message).toBe(
            'record WEB-1021: lines.0.productId: "MUG-PURPLE" is an unknown product (not in the service\'s product collection)',
          );
          expect(plan.records.filter((r) => r.outcome === 'duplicate').map((r) => r.key)).toEqual(['WEB-1001']);
          expect(plan.summary.perStream.orders).toMatchObject({ records: 24, posts: 80 });
          const a01 = plan.records.find((r) => r.key === 'CNT-2026-11-20-A01')!;
          expect(a01.details?.lines).toEqual([
            expect.objectContaining({ productId: 'SKU-0010', onHand: 70, counted: 68, quantityOnHandVar: -2 }),
          ]);
          expect(plan.records.find((r) => r.key === 'CNT-2026-11-20-A03')?.outcome).toBe('unchanged');
          expect(plan.records.find((r) => r.key === 'GIFT-SET')?.details).toMatchObject({ action: 'replace' });
          expect(plan.records.find((r) => r.key === 'SKU-0100')?.details).toMatchObject({ action: 'create' });
          // One read of on-hand stock for every count of the run.
          expect(stack.sandbox.admin.requests().filter((r) => r.path.endsWith('/api/inventoryitem'))).toHaveLength(1);

          const before = stack.sandbox.admin.requests().length;
          const real = await runCli(['sync', '--once'], stack.env, SLOW);
          expect(real.code).toBe(1);
          const planned = plannedWrites(plan, stack.sandbox);
          expect(planned).toHaveLength(84);
          expect(loggedWrites(stack.sandbox, before)).toEqual(planned);

          // The same records delivered again: nothing left to do, and the dry run says so.
          for (const s of STREAMS) stack.feed.append(s, feed[s]!);
          const again = await dryRunJson(stack, ['sync', '--once']);
          expect(again.code).toBe(0);
          const good = again.plan.records.filter((r) => r.stream === 'orders' && !['WEB-1021', 'WEB-1022', 'WEB-1023'].includes(r.key));
          expect(good.length).toBe(21);
          for (const r of good) expect(r.summary).toMatch(/already synced|the same record again/);
          expect(again.plan.summary.posts).toBe(0);
        }),
    );
  });

  describe('import <stream> <file> --dry-run', () => {
    it(
      "prints each order's plan and the bad record with its reason, exits 1, and the real import sends what it printed",
      { timeout: 300_000 },
      () =>
        withStack({}, `dry-import-${profile}`, profile, async (stack) => {
          const file = ndjson([order(1), order(2, 'NO-SUCH'), order(3)]);
          const text = await runCli(['import', 'orders', file, '--dry-run'], stack.env, SLOW);
          expect(text.code).toBe(1);
          expect(text.stdout).toContain('Dry run: nothing was written to the service, no cursor moved, no job was queued.');
          expect(text.stdout).toContain(`orders: 3 records from ${file}`);
          expect(text.stdout).toMatch(/DRY-1 \(line 1\)\s+WRITES\s+order DRY-1: 4 calls/);
          expect(text.stdout).toContain('POST /demo/api/order  (create the order from Main Warehouse: MUG-BLUE 1 x 12.5)');
          expect(text.stdout).toContain('POST {shipmentUrl}  (ship the shipment)');
          expect(text.stdout).toContain('POST /demo/api/order/DRY-3/complete  (complete the order)');
          expect(text.stdout).toMatch(/orders\s+DRY-2\s+\[BAD_RECORD\] record DRY-2: lines\.0\.productId: "NO-SUCH" is an unknown product/);
          expect(text.stdout).toMatch(/orders\s+3\s+2\s+0\s+0\s+1\s+0\s+8\s+0/);
          await expectNothingWritten(stack);

          const { plan } = await dryRunJson(stack, ['import', 'orders', file]);
          expect(plan.records.map((r) => [r.key, r.line, r.outcome])).toEqual([
            ['DRY-1', 1, 'writes'],
            ['DRY-2', 2, 'fails'],
            ['DRY-3', 3, 'writes'],
          ]);
          await expectNothingWritten(stack);

          const before = stack.sandbox.admin.requests().length;
          const real = await runCli(['import', 'orders', file, '--process'], stack.env, SLOW);
          expect(real.code).toBe(1);
          expect(loggedWrites(stack.sandbox, before)).toEqual(plannedWrites(plan, stack.sandbox));

          const after = await dryRunJson(stack, ['import', 'orders', file]);
          expect(after.plan.records.map((r) => [r.key, r.outcome])).toEqual([
            ['DRY-1', 'unchanged'],
            ['DRY-2', 'duplicate'],
            ['DRY-3', 'unchanged'],
          ]);
          expect(after.plan.records[0]!.summary).toMatch(/^already synced: its job orders-DRY-1-[0-9a-f]{12} completed; no calls$/);
          expect(after.code).toBe(0);
        }),
    );
  });
});

describe('dry run with a go-live floor and a mapping file', () => {
  it(
    "plans older records as skipped before go-live and mapped records with the service's names; the real run sends the same",
    { timeout: 300_000 },
    () =>
      withStack({}, 'dry-golive-map', 'observed', async (stack) => {
        const mapping = join(mkdtempSync(join(tmpdir(), 'isync-dry-map-')), 'mapping.csv');
        writeFileSync(
          mapping,
          'kind,upstream,service\nproduct,SKU-9,MUG-BLUE\nfacility,WH1,Main Warehouse\nfacility,WH1-A1,Main Warehouse / A-01\n',
        );
        const env = { ...stack.env, MAPPING_FILE: mapping, SYNC_ORDERS_SINCE: '2026-11-01' };
        const old = { ...order(1), orderDate: '2026-10-31T23:59:59' };
        const mapped = {
          ...order(2, 'SKU-9'),
          origin: 'WH1',
          lines: [{ productId: 'SKU-9', quantity: 2, unitPrice: 3, location: 'WH1-A1' }],
        };
        const file = ndjson([old, mapped, order(3, 'SKU-UNMAPPED')]);
        const r = await runCli(['import', 'orders', file, '--dry-run', '--json'], env, SLOW);
        expect(r.code, r.stderr).toBe(1);
        const plan = JSON.parse(r.stdout) as DryRunPlan;
        expect(plan.records.map((x) => [x.key, x.outcome])).toEqual([
          ['DRY-1', 'skipped'],
          ['DRY-2', 'writes'],
          ['DRY-3', 'fails'],
        ]);
        expect(plan.records[0]!.summary).toContain('before go-live: orderDate 2026-10-31T23:59:59 is before SYNC_ORDERS_SINCE 2026-11-01');
        expect(plan.records[0]!.calls).toEqual([]);
        const create = plan.records[1]!.calls[0]!;
        const body = create.body as { originFacilityUrl: string; orderItemList: Array<{ productId: string }> };
        expect(body.orderItemList.map((l) => l.productId)).toEqual(['MUG-BLUE']);
        const facilities = stack.sandbox.admin.state().facilities as Array<{
          facilityUrl: string;
          facilityName: string;
          parentFacilityUrl?: string | null;
        }>;
        expect(facilities.find((f) => f.facilityUrl === body.originFacilityUrl)).toMatchObject({ facilityName: 'Main Warehouse' });
        expect(plan.records[2]!.error?.message).toContain('"SKU-UNMAPPED" is an unknown product');
        const text = await runCli(['import', 'orders', file, '--dry-run'], env, SLOW);
        expect(text.stdout).toContain('(create the order from WH1 → Main Warehouse: SKU-9 → MUG-BLUE 2 x 3)');
        expect(text.stdout).toContain('(create its shipment DRY-2-1: SKU-9 → MUG-BLUE 2 from WH1-A1 → Main Warehouse / A-01)');
        await expectNothingWritten(stack);

        const before = stack.sandbox.admin.requests().length;
        const real = await runCli(['import', 'orders', file, '--process'], env, SLOW);
        expect(real.code).toBe(1);
        expect(loggedWrites(stack.sandbox, before)).toEqual(plannedWrites(plan, stack.sandbox));
        expect(stack.sandbox.admin.state().orders.map((o: { orderId: string }) => o.orderId)).toEqual(['DRY-2']);
      }),
  );
});

describe('dry run beside queued work', () => {
  it('says what was queued before it, which the real run processes too', async () => {
    const stack = await startStack({}, 'dry-queued');
    try {
      expect((await runCli(['import', 'orders', ndjson([order(1)])], stack.env)).code).toBe(0);
      const r = await runCli(['import', 'orders', ndjson([order(2)]), '--dry-run'], stack.env, SLOW);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('orders: 0 jobs and 1 import batch were queued before this dry run; the real run processes them too');
      expect(r.stdout).toContain('Every record can be synced as planned.');
    } finally {
      await stack.close();
    }
  });
});

describe('dry run usage', () => {
  it('refuses --dry-run with --process', async () => {
    const stack = await startStack({}, 'dry-usage');
    try {
      const r = await runCli(['import', 'orders', ndjson([order(1)]), '--dry-run', '--process'], stack.env);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--dry-run and --process exclude each other');
    } finally {
      await stack.close();
    }
  });
});
