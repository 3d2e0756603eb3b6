import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dryRun, type DryRunPlan } from '../../src/app/dry-run.js';
import { createLogger } from '../../src/log/logger.js';
import { findGaps } from '../../src/ops/check/check-gaps.js';
import { orderKind } from '../../jobs/orders/order-kind.js';
import { programKinds } from '../../jobs/kinds.js';
import { A01, partsOf, returnOf, snap } from '../helpers/order-lives.js';
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
