import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dryRun, type DryRunPlan } from '../../src/app/dry-run.js';
import { createLogger } from '../../src/log/logger.js';
import { findGaps } from '../../src/ops/check/check-gaps.js';
import { orderKind } from '../../jobs/orders/order-kind.js';
import { programKinds } from '../../jobs/kinds.js';
import { canonicalJson } from '../../src/queue/canonical-hash.js';
import { buildLives, placeLives } from '../../bench/chaos/life-scenario.js';
import { A01, partsOf, returnOf, snap } from '../helpers/order-lives.js';
import { orderRecord } from '../helpers/order-records.js';
import { testWorld, type TestWorld } from '../helpers/test-world.js';

/** Issue 34: the dry run and `check` read snapshots as the run does. */
describe('dry run and check of snapshots', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await testWorld('dry-run-life', { streams: ['orders'] });
  });
  afterAll(async () => {
    await world?.close();
  });

  const plan = (records: unknown[]): Promise<DryRunPlan> =>
    dryRun(
      { ...world.deps, logger: createLogger({ level: 'silent' }), maxRecordBytes: 1 << 20 },
      {
        kinds: [...programKinds],
        sources: [{ stream: 'orders', from: 'file', file: Readable.from([records.map((r) => JSON.stringify(r)).join('\n')]) }],
      },
    );
  const posts = () => world.sandbox.admin.requests().filter((r) => r.method === 'POST').length;
  /** A write as one comparable string; a shipment's or a variance's URL (the service assigns it) as its placeholder. */
  const written = (c: { method: string; path: string; body?: unknown }) =>
    `${c.method} ${/\/api\/shipment\/[^/]+$/.test(c.path) ? '{shipmentUrl}' : c.path} ${canonicalJson(c.body ?? null)}`;
  /** Runs the records as the real run takes one order's snapshots, each after the one before; answers each job's outcome. */
  async function syncInTurn(records: unknown[]): Promise<{ writes: string[]; outcomes: string[] }> {
    const from = world.sandbox.admin.requests().length;
    const outcomes: string[] = [];
    for (const r of records) {
      const before = new Set((await world.jobs('orders')).map((j) => j.id));
      await world.add('orders', [r]);
      await world.idle();
      const job = (await world.jobs('orders')).find((j) => !before.has(j.id));
      outcomes.push(job ? (job.failedReason ? 'failed' : job.returnvalue.outcome) : 'none');
    }
    const sent = world.sandbox.admin
      .requests()
      .slice(from)
      .filter((r) => r.method !== 'GET');
    return { writes: sent.map(written).sort(), outcomes };
  }
  /** The real job's outcome each planned outcome stands for. */
  const AS_RUN: Record<string, string> = {
    writes: 'synced',
    unchanged: 'unchanged',
    skipped: 'skipped',
    fails: 'failed',
    duplicate: 'none',
  };

  describe('when a file has an open snapshot of an order, then a fulfilled one, then a late copy of the open one', () => {
    const id = 'DRY-LIFE-1';
    const records = [
      snap(id, { updatedAt: '2026-11-20T10:00:00' }),
      snap(id, { status: 'fulfilled', updatedAt: '2026-11-20T12:00:00', fulfillments: partsOf(id) }),
      snap(id, { updatedAt: '2026-11-20T11:00:00' }),
    ];
    let p: DryRunPlan;
    beforeAll(async () => {
      p = await plan(records);
    });

    it('plans each in turn, the fulfilled one after what the open one would do, the late one skipped as older', () => {
      expect(p.records.map((r) => [r.outcome, r.calls.map((c) => c.what)])).toEqual([
        ['writes', ['create the order', 'commit the order (its units reserved)']],
        ['writes', [`create shipment ${id}-F1`, `ship ${id}-F1`, `create shipment ${id}-F2`, `ship ${id}-F2`, 'complete the order']],
        ['skipped', []],
      ]);
      expect(p.records[2]!.summary).toBe(`order ${id}: older than the snapshot of 2026-11-20T12:00:00; no calls`);
      expect(p.ok).toBe(true);
    });

    it('plans the writes the run then sends, no more, no fewer', async () => {
      const before = posts();
      for (const r of records) {
        await world.add('orders', [r]);
        await world.idle();
      }
      expect(posts() - before).toBe(p.records.reduce((n, r) => n + r.calls.length, 0));
    });
  });

  describe('when a file holds the lives of several orders, their snapshots interleaved (issue 46)', () => {
    const [f1, f2] = partsOf('DRY-L1');
    const edited = [
      { productId: 'MUG-BLUE', quantity: 4, unitPrice: 12.5, location: A01 },
      { productId: 'SKU-0003', quantity: 1, unitPrice: 4, location: 'A-02' },
    ];
    const f2edited = { ...f2!, lines: [{ ...f2!.lines[0]!, quantity: 2 }, f2!.lines[1]!] };
    const records = [
      // Open, edited, shipped in two parts, returned.
      snap('DRY-L1', { updatedAt: '2026-11-20T10:00:00' }),
      // Open, then cancelled.
      snap('DRY-L2', { updatedAt: '2026-11-20T10:00:00' }),
      snap('DRY-L1', { updatedAt: '2026-11-20T11:00:00', lines: edited }),
      // A newer snapshot before an older one; a plain record newer than both.
      snap('DRY-L3', { status: 'fulfilled', updatedAt: '2026-11-20T12:00:00', fulfillments: partsOf('DRY-L3') }),
      snap('DRY-L1', { updatedAt: '2026-11-20T12:00:00', lines: edited, fulfillments: [f1] }),
      snap('DRY-L2', { status: 'cancelled', updatedAt: '2026-11-20T11:00:00' }),
      snap('DRY-L3', { updatedAt: '2026-11-20T10:00:00' }),
      snap('DRY-L1', { status: 'fulfilled', updatedAt: '2026-11-21T10:00:00', lines: edited, fulfillments: [f1, f2edited] }),
      { ...orderRecord('DRY-L4'), updatedAt: '2026-11-20T12:00:00' },
      snap('DRY-L1', {
        status: 'fulfilled',
        updatedAt: '2026-11-22T10:00:00',
        lines: edited,
        fulfillments: [f1, f2edited],
        returns: [returnOf('DRY-L1')],
      }),
      snap('DRY-L4', { updatedAt: '2026-11-20T09:00:00' }),
      // A return notice: a refund told on its own.
      {
        orderId: 'DRY-L1',
        updatedAt: '2026-11-24T09:00:00',
        returns: [{ ...returnOf('DRY-L1'), returnId: 'DRY-L1-R2', returnedAt: '2026-11-24T09:00:00' }],
      },
      // Cancelled before it was ever seen: not created.
      snap('DRY-L5', { status: 'cancelled', updatedAt: '2026-11-20T10:00:00' }),
    ];

    it('plans each snapshot against what the ones before it leave: exactly the writes the real run then sends', async () => {
      const p = await plan(records);
      expect(p.records.map((r) => r.outcome)).toEqual([
        'writes',
        'writes',
        'writes',
        'writes',
        'writes',
        'writes',
        'skipped',
        'writes',
        'writes',
        'writes',
        'skipped',
        'writes',
        'skipped',
      ]);
      const cancel = p.records[5]!;
      expect(cancel.calls.map((c) => c.what)).toEqual(['cancel the order (and its unshipped shipments)']);
      // Only the return: the order, its parts and its completion are the earlier snapshots'.
      expect(p.records[9]!.calls.map((c) => c.what)).toEqual(['restock return DRY-L1-R1']);
      const planned = p.records
        .flatMap((r) => r.calls)
        .map(written)
        .sort();
      const before = posts();
      const real = await syncInTurn(records);
      expect(posts() - before).toBe(planned.length);
      expect(real.writes).toEqual(planned);
      expect(real.outcomes).toEqual(p.records.map((r) => AS_RUN[r.outcome]));
    });
  });

  describe('when a file holds the generated order lives of a chaos run, an older snapshot after a newer one in a third of them', () => {
    it('plans exactly the writes the real run sends on a fresh account', async () => {
      const lives = buildLives({
        seed: 46,
        count: 12,
        locations: ['A-01', 'A-02', 'A-03', 'A-04'].map((l) => ({ magazine: 'Main Warehouse', name: `Main Warehouse / ${l}` })),
        products: Array.from({ length: 40 }, (_, i) => `SKU-${String(i + 1).padStart(4, '0')}`),
      });
      const filler = Array.from({ length: 40 }, () => null);
      const records = placeLives(filler, lives, { seed: 46, redeliveryRate: 0 }).feed.filter((r) => r !== null);
      expect(lives.some((l) => l.swapped)).toBe(true);
      const p = await plan(records);
      const planned = p.records
        .flatMap((r) => r.calls)
        .map(written)
        .sort();
      const real = await syncInTurn(records);
      expect(real.writes).toEqual(planned);
      expect(real.outcomes).toEqual(p.records.map((r) => AS_RUN[r.outcome]));
    }, 120_000);
  });

  describe('when check reads snapshots and return notices', () => {
    it('names the products and locations of their returns that the service lacks', async () => {
      const records = [
        // A return restocked to another place than its lines left from.
        snap('CHK-LIFE-1', {
          status: 'fulfilled',
          fulfillments: partsOf('CHK-LIFE-1'),
          returns: [{ ...returnOf('CHK-LIFE-1'), lines: [{ productId: 'MUG-BLUE', quantity: 1, location: 'Nowhere / Z-9' }] }],
        }),
        {
          orderId: 'CHK-LIFE-2',
          returns: [{ ...returnOf('CHK-LIFE-2'), lines: [{ productId: 'NO-SUCH-SKU', quantity: 1, location: A01 }] }],
        },
      ].map((r) => orderKind.record.schema.parse(r));
      const named = records.map((r) => ({ stream: 'orders', key: r.orderId, references: orderKind.record.references(r) }));
      const { gaps } = await findGaps(world.deps.catalog, named);
      expect(gaps.map((g) => [g.what, g.name, g.examples]).sort()).toEqual([
        ['facility', 'Nowhere / Z-9', ['CHK-LIFE-1']],
        ['product', 'NO-SUCH-SKU', ['CHK-LIFE-2']],
      ]);
    });
  });
});
