import type { Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findRecord } from '../../../src/ops/find.js';
import type { JobResult } from '../../../src/queue/job-context.js';
import type { JobData } from '../../../src/queue/queues.js';
import { openStreamQueues, type StreamQueues } from '../../../src/queue/stream-queues.js';
import { A01, partsOf, snap } from '../../helpers/order-lives.js';
import { orderRecord, orderState } from '../../helpers/order-records.js';
import { describeEachProfile, testWorld, type TestWorld } from '../../helpers/test-world.js';

/** Issue 46: every form of an order record runs through one machine. */
describeEachProfile('one order machine', (profile) => {
  let world: TestWorld;
  let queues: StreamQueues;
  beforeAll(async () => {
    world = await testWorld(`order-one-${profile}`, { streams: ['orders'], sandbox: { profile } });
    await world.deps.catalog.refresh();
    queues = openStreamQueues(world.redis, world.prefix, world.kinds);
  });
  afterAll(async () => {
    await queues?.close();
    await world?.close();
  });

  async function sync(...records: Record<string, unknown>[]) {
    for (const r of records) {
      await world.add('orders', [r]);
      await world.idle();
    }
  }
  const counts = () => world.sandbox.admin.counters().byClass;
  const jobsOf = async (id: string): Promise<Array<Job<JobData, JobResult>>> =>
    (await world.jobs('orders'))
      .filter((j) => (j.data.record as { orderId?: string }).orderId === id)
      .sort((a, b) => a.timestamp - b.timestamp);

  /** A plain record (no life told) with an updatedAt, the lines of `snap`. */
  const plain = (orderId: string, updatedAt: string, o: Record<string, unknown> = {}) => ({
    ...orderRecord(orderId, snap(orderId).lines as Array<Record<string, unknown>>),
    updatedAt,
    ...o,
  });
  const NEWER = '2026-11-20T12:00:00';
  const OLDER = '2026-11-20T10:00:00';

  describe.each([
    {
      id: 'ONE-PLAIN-OPEN',
      pair: 'a plain fulfilled snapshot, then an older open one',
      newer: (id: string) => plain(id, NEWER, { status: 'fulfilled' }),
      older: (id: string) => snap(id, { updatedAt: OLDER }),
    },
    {
      id: 'ONE-PLAIN-PLAIN',
      pair: 'a plain record, then an older plain one with other lines (plain/plain)',
      newer: (id: string) => plain(id, NEWER),
      older: (id: string) => ({ ...plain(id, OLDER), lines: [{ productId: 'MUG-BLUE', quantity: 9, unitPrice: 12.5, location: A01 }] }),
    },
    {
      id: 'ONE-PLAIN-SNAP',
      pair: 'a plain record, then an older snapshot shipped in parts (plain/snapshot)',
      newer: (id: string) => plain(id, NEWER),
      older: (id: string) => snap(id, { status: 'fulfilled', updatedAt: OLDER, fulfillments: partsOf(id) }),
    },
    {
      id: 'ONE-SNAP-PLAIN',
      pair: 'a snapshot shipped in parts, then an older plain record (snapshot/plain)',
      newer: (id: string) => snap(id, { status: 'fulfilled', updatedAt: NEWER, fulfillments: partsOf(id) }),
      older: (id: string) => plain(id, OLDER),
    },
  ])('when $pair arrives', ({ id, newer, older }) => {
    let before: ReturnType<typeof counts>;
    let service: ReturnType<typeof orderState>;
    beforeAll(async () => {
      await sync(newer(id));
      service = orderState(world.sandbox.admin.state(), id);
      before = counts();
      await sync(older(id));
    });

    it('ends the older one skipped as older, with no call, and the service as the newer one left it', async () => {
      const [, last] = await jobsOf(id);
      expect(last!.returnvalue).toMatchObject({ outcome: 'skipped', details: { skipped: 'older', seenAt: NEWER } });
      const [trace] = await world.traces('orders', last!.id!);
      expect(trace!.calls).toEqual([]);
      expect([counts().post - before.post, counts().get - before.get]).toEqual([0, 0]);
      expect(orderState(world.sandbox.admin.state(), id)).toEqual(service);
      expect(service.orders.map((o) => o.statusId)).toEqual(['ORDER_COMPLETED']);
    });

    it('is named by find as the newest snapshot seen, the older one logged as skipped', async () => {
      const r = await findRecord(world.redis, queues, id, undefined, { kinds: world.kinds });
      const order = r.progress.order as { seenAt: string; snapshots: Array<{ updatedAt: string; outcome: string; older?: boolean }> };
      expect(order.seenAt).toBe(NEWER);
      expect(order.snapshots.map((e) => [e.updatedAt, e.outcome, e.older ?? false])).toEqual([
        [OLDER, 'skipped', true],
        [NEWER, 'synced', false],
      ]);
      expect(r.progressLines[0]).toContain(`newest snapshot seen ${NEWER}`);
    });
  });

  describe('when a cancelled snapshot carries a fulfillment the service lacks', () => {
    const f1 = { fulfillmentId: 'F1', lines: [{ productId: 'MUG-BLUE', quantity: 2, location: A01 }] };
    const part = (id: string) => [{ ...f1, fulfillmentId: `${id}-F1` }];
    let stock: number;
    beforeAll(() => {
      stock = world.sandbox.admin.stockOnHand(world.facility('A-01'), world.product('MUG-BLUE'));
    });

    it.each([
      { first: 'first seen so', id: 'ONE-CXL-FIRST', before: [], status: 'ORDER_CREATED' },
      { first: 'after an open one without it', id: 'ONE-CXL-OPEN', before: ['open'], status: 'ORDER_LOCKED' },
    ])('ships the part once ($first), leaves the order to a person and cancels nothing', async ({ id, before, status }) => {
      const creates = world.sandbox.admin.counters().creates.shipment;
      const posts = counts().post;
      const cancelled = snap(id, { status: 'cancelled', updatedAt: '2026-11-20T11:00:00', fulfillments: part(id) });
      if (before.length) await sync(snap(id, { updatedAt: '2026-11-20T10:00:00' }));
      // Delivered twice: the second finds the part shipped and is left to a person again, writing nothing.
      await sync(cancelled, { ...cancelled, updatedAt: '2026-11-20T11:30:00' });
      const { orders, shipments } = orderState(world.sandbox.admin.state(), id);
      expect(orders.map((o) => o.statusId)).toEqual([status]);
      expect(shipments.map((s) => [s.shipmentIdUser, s.statusId])).toEqual([[`${id}-F1`, 'SHIPMENT_SHIPPED']]);
      expect(world.sandbox.admin.counters().creates.shipment - creates).toBe(1);
      // The order (created, and committed when open), its shipment, shipped: no cancel.
      expect(counts().post - posts).toBe(before.length ? 4 : 3);
      const failed = (await jobsOf(id)).filter((j) => j.failedReason);
      expect(failed.map((j) => j.failedReason)).toEqual([
        expect.stringMatching(/^\[CANCEL_AFTER_SHIPPED\] order ONE-CXL-\w+: .*-F1 is shipped/),
        expect.stringMatching(/^\[CANCEL_AFTER_SHIPPED\]/),
      ]);
      expect(failed.map((j) => j.attemptsMade)).toEqual([1, 1]);
    });

    it('takes each shipped unit off the shelf once', () => {
      expect(world.sandbox.admin.stockOnHand(world.facility('A-01'), world.product('MUG-BLUE'))).toBe(stock - 2 * 2);
    });
  });
});
