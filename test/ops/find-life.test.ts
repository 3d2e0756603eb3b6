import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findRecord, type FindResult } from '../../src/ops/find.js';
import { renderFind } from '../../src/cli/render-find.js';
import { orderRecord } from '../helpers/order-records.js';
import { cancelledLife, shippedLife } from '../helpers/order-lives.js';
import { testWorld, type TestWorld } from '../helpers/test-world.js';
import { openStreamQueues, type StreamQueues } from '../../src/queue/stream-queues.js';

/** Issue 34: find shows an order's life, its snapshots in order and what each did, beside its progress. */
describe("find, an order's life", () => {
  let world: TestWorld;
  let queues: StreamQueues;
  const find = (key: string): Promise<FindResult> => findRecord(world.redis, queues, key, undefined, { kinds: world.kinds });

  beforeAll(async () => {
    world = await testWorld('find-life', { streams: ['orders'] });
    // One snapshot after the other, as they would arrive: the late copy of the open one after the part shipped.
    for (const r of [...shippedLife('FL-1'), ...cancelledLife('FL-2'), orderRecord('FL-PLAIN')]) {
      await world.add('orders', [r]);
      await world.idle();
    }
    queues = openStreamQueues(world.redis, world.prefix, world.kinds);
  }, 60_000);
  afterAll(async () => {
    await queues?.close();
    await world?.close();
  });

  describe('when the order was opened, shipped in two parts, fulfilled and returned', () => {
    let r: FindResult;
    beforeAll(async () => {
      r = await find('FL-1');
    });

    it('lists its snapshots by updatedAt, what each did, and the late one as skipped older', () => {
      const log = (r.progress.order as { snapshots: Array<Record<string, unknown>> }).snapshots;
      expect(log.map((e) => [e.updatedAt, e.status, e.outcome, e.older ?? false])).toEqual([
        ['2026-11-20T10:00:00', 'open', 'synced', false],
        ['2026-11-20T10:30:00', 'open', 'skipped', true],
        ['2026-11-20T11:00:00', 'open', 'synced', false],
        ['2026-11-20T12:00:00', 'fulfilled', 'synced', false],
        ['2026-11-23T10:05:00', 'fulfilled', 'synced', false],
      ]);
      expect(log[0]!.said).toContain('created the order, committed the order');
      expect(log[2]!.said).toContain('shipped FL-1-F1');
      expect(log[4]!.said).toContain('restocked return FL-1-R1');
    });

    it("shows the order's status in the service, each fulfillment's shipment shipped, and the restocked return", () => {
      const state = world.sandbox.admin.state();
      const order = state.orders.find((o) => o.orderId === 'FL-1')!;
      const shipments = state.shipments.filter((s) => s.primaryOrderUrl === order.orderUrl);
      expect(r.progress.order).toMatchObject({
        life: true,
        status: 'completed',
        statusId: 'ORDER_COMPLETED',
        orderUrl: order.orderUrl,
        pending: null,
        seenAt: '2026-11-23T10:05:00',
        parts: ['FL-1-F1', 'FL-1-F2'].map((id) => ({
          fulfillmentId: id,
          shipped: true,
          shipmentUrl: shipments.find((s) => s.shipmentIdUser === id)!.shipmentUrl,
        })),
        returns: [{ returnId: 'FL-1-R1', varianceUrls: [expect.stringMatching(/inventoryvariance/)], day: '2026-11-23' }],
      });
      expect(r.entities.map((e) => e.kind)).toEqual(['order', 'shipment', 'shipment', 'variance']);
      expect(r.progressLines[0]).toMatch(
        /^Order FL-1 lives: completed in the service \(ORDER_COMPLETED\); shipments FL-1-F1 shipped, FL-1-F2 shipped; returns restocked FL-1-R1;.*5 snapshots logged, 1 skipped as older$/,
      );
    });

    it('marks the version in force (the newest that ran and was not skipped), the late older snapshot skipped, the rest superseded', () => {
      const outcome = (j: FindResult['jobs'][number]) => (j.result as { outcome?: string }).outcome;
      expect(r.jobs.map((j) => [j.version, outcome(j), j.standing])).toEqual([
        [1, 'synced', 'superseded'],
        [2, 'synced', 'superseded'],
        [3, 'skipped', 'skipped'],
        [4, 'synced', 'superseded'],
        [5, 'synced', 'in force'],
      ]);
      // Not "(older)" for a version that won: the words of each standing.
      expect(renderFind(r)).toMatch(/orders-FL-1-\S+\s+orders\s+v5 \(in force\)\s+completed\s+1\s/);
      expect(renderFind(r)).toMatch(/orders-FL-1-\S+\s+orders\s+v3 \(skipped\)\s+completed/);
    });

    it('prints the snapshots and shipments as tables', () => {
      const text = renderFind(r);
      expect(text).toContain('Snapshots of FL-1, in order (by updatedAt):');
      expect(text).toMatch(/2026-11-20T10:30:00\s+open\s+skipped \(older\)\s+orders-FL-1-/);
      expect(text).toMatch(/FL-1-F2\s+\/demo\/api\/shipment\/\S+\s+yes/);
      expect(text).toContain('Returns of FL-1:');
    });
  });

  describe('when the order was opened then cancelled', () => {
    it('shows it cancelled in the service, with both snapshots', async () => {
      const r = await find('FL-2');
      expect(r.progress.order).toMatchObject({ status: 'cancelled', statusId: 'ORDER_CANCELLED', parts: [] });
      const log = (r.progress.order as { snapshots: Array<Record<string, unknown>> }).snapshots;
      expect(log.map((e) => [e.status, e.outcome])).toEqual([
        ['open', 'synced'],
        ['cancelled', 'synced'],
      ]);
      expect(log[1]!.said).toContain('cancelled the order');
    });
  });

  describe('when the order is a plain fulfilled one', () => {
    it('shows its progress as before, with no life', async () => {
      const r = await find('FL-PLAIN');
      expect(r.progress.order).toEqual({ step: 'completed', pending: null, orderUrl: expect.any(String), shipmentUrl: expect.any(String) });
      expect(r.progressLines).toEqual(['Order progress: completed']);
      expect(r.sections).toEqual([]);
    });
  });
});
