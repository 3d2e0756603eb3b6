import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderKeys } from '../../../jobs/orders/order-keys.js';
import { itemsHashOf, planOrder, recordHashOf } from '../../../jobs/orders/order-plan.js';
import { actionsOf } from '../../../jobs/orders/order-read.js';
import type { OrderRecord } from '../../../jobs/orders/order-record.js';
import { ReleasedProgressStore, saveReleasedLife } from '../../kit/released-order-progress.js';
import { partsOf, snap } from '../../helpers/order-lives.js';
import { orderRecord, orderState } from '../../helpers/order-records.js';
import { describeEachProfile, jobOf, testWorld, type TestWorld } from '../../helpers/test-world.js';

const TTL = 30 * 24 * 3600;

/**
 * Issue 46: orders in flight when the program is upgraded from the released two-machine version. Each order is left in
 * the service as that version leaves it at a step, with its progress hash as that version writes it (the step done
 * and the next write's intent, as a process killed between the two would leave them); the new version's job of the
 * same record finishes it once.
 */
describeEachProfile('an upgrade from the two-machine version', (profile) => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await testWorld(`order-upgrade-${profile}`, { streams: ['orders'], sandbox: { profile } });
    await world.deps.catalog.refresh();
  });
  afterAll(async () => {
    await world?.close();
  });

  const counts = () => world.sandbox.admin.counters();
  const key = (id: string) => orderKeys(world.keys).progress(id);
  async function callsOf(id: string): Promise<string[]> {
    const job = await jobOf(world, 'orders', id);
    return (await world.traces('orders', job.id!)).flatMap((t) => t.calls.map((c: { method: string }) => c.method));
  }

  /** The released plain steps, as OrderRun and OrderSettlement wrote them, up to `step`, with the next write's intent. */
  async function leftAt(id: string, step: 'created' | 'shipment-created' | 'shipped'): Promise<void> {
    const record = orderRecord(id) as OrderRecord;
    const plan = await planOrder(record, world.deps.catalog);
    const recordHash = recordHashOf(record);
    const store = new ReleasedProgressStore(world.redis, key(id), TTL);
    await store.save({ pending: 'create-order', recordHash }, true);
    const order = await world.client.createOrder(plan.order!);
    const actionUrlComplete = order.actionUrlComplete ?? `${order.orderUrl}/complete`;
    await store.save({ orderUrl: order.orderUrl, actionUrlComplete, step: 'created', pending: 'create-shipment', recordHash });
    if (step === 'created') return;
    const shipment = await world.client.createShipment({ ...plan.parts[0]!.shipment, primaryOrderUrl: order.orderUrl });
    await store.save({ shipmentUrl: shipment.shipmentUrl, step: 'shipment-created', pending: 'ship', recordHash });
    if (step === 'shipment-created') return;
    await world.client.modifyShipment(shipment.shipmentUrl, { statusId: 'SHIPMENT_SHIPPED' });
    await store.save({ step: 'shipped', pending: 'complete', recordHash });
  }

  describe.each([
    { id: 'UP-CREATED', step: 'created' as const, posts: 3, reads: 1 },
    { id: 'UP-SHIPMENT', step: 'shipment-created' as const, posts: 2, reads: 1 },
    { id: 'UP-SHIPPED', step: 'shipped' as const, posts: 1, reads: 1 },
  ])('when a plain order was left after "$step"', ({ id, step, posts, reads }) => {
    let before: ReturnType<typeof counts>;
    let stock: number;
    beforeAll(async () => {
      await leftAt(id, step);
      stock = world.sandbox.admin.stockOnHand(world.facility('A-01'), world.product('MUG-BLUE'));
      before = counts();
      await world.add('orders', [orderRecord(id)]);
      await world.idle();
    });

    it('finishes it once: one order, completed, one shipment, shipped', async () => {
      expect((await jobOf(world, 'orders', id)).returnvalue).toMatchObject({ outcome: 'synced' });
      const { orders, shipments } = orderState(world.sandbox.admin.state(), id);
      expect([orders.map((o) => o.statusId), shipments.map((s) => s.statusId)]).toEqual([['ORDER_COMPLETED'], ['SHIPMENT_SHIPPED']]);
      expect([counts().creates.order - before.creates.order, counts().creates.shipment - before.creates.shipment]).toEqual([
        0,
        step === 'created' ? 1 : 0,
      ]);
      const shipped = step === 'shipped' ? 0 : 2;
      expect(world.sandbox.admin.stockOnHand(world.facility('A-01'), world.product('MUG-BLUE'))).toBe(stock - shipped);
    });

    it('settles the released intent by reading, then sends only the steps left', async () => {
      const calls = await callsOf(id);
      expect(calls.filter((m) => m === 'POST')).toHaveLength(posts);
      // The order (and its listed shipment when one is read for a create) or the shipment: never a write first.
      expect(calls.slice(0, reads)).toEqual(Array.from({ length: reads }, () => 'GET'));
      expect(calls.filter((m) => m === 'GET')).toHaveLength(reads);
    });

    it('keeps its progress in the one form from then on, and a re-delivery costs nothing', async () => {
      expect(await world.redis.hgetall(key(id))).toMatchObject({ life: '1', step: 'completed', status: 'completed', pending: '' });
      expect(await world.redis.ttl(key(id))).toBeGreaterThan(29 * 24 * 3600);
      const again = counts();
      await (await jobOf(world, 'orders', id)).remove();
      await world.add('orders', [orderRecord(id)]);
      await world.idle();
      expect((await jobOf(world, 'orders', id)).returnvalue).toMatchObject({ outcome: 'unchanged' });
      expect(counts().requests).toBe(again.requests);
    });
  });

  describe('when an order that lives was left committed, its first part about to be created', () => {
    const id = 'UP-LIFE';
    let before: ReturnType<typeof counts>;
    beforeAll(async () => {
      const open = snap(id, { updatedAt: '2026-11-20T10:00:00' });
      const plan = await planOrder(open as OrderRecord, world.deps.catalog);
      const order = await world.client.createOrder(plan.order!);
      const locked = await world.client.orderAction(order.actionUrlLock ?? `${order.orderUrl}/lock`);
      // The released LifeRun's save after the lock, with the intent of the next snapshot's first shipment.
      const actions = actionsOf(locked) as Record<string, string>;
      await saveReleasedLife(
        world.redis,
        key(id),
        {
          status: 'locked',
          orderUrl: order.orderUrl,
          items: itemsHashOf(plan.order!.orderItemList),
          seenAt: '2026-11-20T11:00:00',
          recordHash: 'released',
          pending: `shipment:${id}-F1`,
        },
        { actions, ttlSeconds: TTL },
      );
      before = counts();
      const [f1, f2] = partsOf(id);
      await world.add('orders', [snap(id, { updatedAt: '2026-11-20T11:00:00', fulfillments: [f1] })]);
      await world.idle();
      await world.add('orders', [snap(id, { status: 'fulfilled', updatedAt: '2026-11-20T12:00:00', fulfillments: [f1, f2] })]);
      await world.idle();
    });

    it('reads the uncertain shipment back, then ships each part once and completes the order', () => {
      const { orders, shipments } = orderState(world.sandbox.admin.state(), id);
      expect(orders.map((o) => o.statusId)).toEqual(['ORDER_COMPLETED']);
      expect(shipments.map((s) => [s.shipmentIdUser, s.statusId]).sort()).toEqual([
        [`${id}-F1`, 'SHIPMENT_SHIPPED'],
        [`${id}-F2`, 'SHIPMENT_SHIPPED'],
      ]);
      expect(counts().creates.shipment - before.creates.shipment).toBe(2);
      // Create and ship each part, complete the order; the read of the order settles the intent.
      expect(counts().byClass.post - before.byClass.post).toBe(5);
      expect(counts().byClass.get - before.byClass.get).toBe(1);
    });
  });
});
