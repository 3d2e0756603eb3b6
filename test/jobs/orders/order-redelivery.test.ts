import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFeedServer, type FeedServer } from '../../../src/feed/feed-server.js';
import { UpstreamClient } from '../../../src/feed/upstream-client.js';
import { createLogger } from '../../../src/log/logger.js';
import { pullStream } from '../../../src/feed/producer.js';
import { orderRecord, orderState } from '../../helpers/order-records.js';
import { describeEachProfile, testWorld, type TestWorld } from '../../helpers/test-world.js';
import { STREAMS } from '../../../jobs/kinds.js';
import { orderKind } from '../../../jobs/orders/order-kind.js';
import { orderKeys } from '../../../jobs/orders/order-keys.js';

describeEachProfile('order sync', (profile) => {
  let world: TestWorld;
  let feed: FeedServer;
  const pull = () =>
    pullStream({
      kind: orderKind,
      upstream: new UpstreamClient({ url: feed.url, retries: 0 }),
      queue: world.queues.get('orders'),
      redis: world.redis,
      keys: world.keys,
      pageSize: 2,
      logger: createLogger({ level: 'silent' }),
    });
  const jobOf = async (orderId: string, pick: (n: number) => number = (n) => n - 1) => {
    const jobs = (await world.jobs('orders')).filter((j) => (j.data.record as { orderId?: string }).orderId === orderId);
    jobs.sort((a, b) => a.timestamp - b.timestamp);
    return jobs[pick(jobs.length)]!;
  };

  beforeAll(async () => {
    // Enough quick retries that a held step outlasts the test's wait for the correction.
    world = await testWorld('order-redelivery', {
      streams: ['orders'],
      jobs: { attempts: 30, retryMaxDelayMs: 100 },
      sandbox: { profile },
    });
    feed = await startFeedServer({ names: STREAMS });
    await world.deps.catalog.refresh();
  });
  afterAll(async () => {
    await feed?.close();
    await world?.close();
  });

  describe('when the feed delivers the same record several times', () => {
    it('creates one order, one shipment, shipped and completed', async () => {
      const a = orderRecord('DUP-1');
      // Twice within a page, once across pages, then again after completion.
      feed.append('orders', [a, a, orderRecord('DUP-2'), a]);
      await pull();
      await world.idle();
      feed.append('orders', [a]);
      const again = await pull();
      await world.idle();
      expect(again.duplicates).toBe(1);
      const { orders, shipments } = orderState(world.sandbox.admin.state(), 'DUP-1');
      expect(orders.map((o) => o.statusId)).toEqual(['ORDER_COMPLETED']);
      expect(shipments.map((s) => s.statusId)).toEqual(['SHIPMENT_SHIPPED']);
    });
  });

  describe('when a record comes again after its job is gone from the queue', () => {
    it('does nothing, without calling the service', async () => {
      const before = world.sandbox.admin.counters();
      await (await jobOf('DUP-2')).remove();
      feed.append('orders', [orderRecord('DUP-2')]);
      expect((await pull()).queued).toBe(1);
      await world.idle();
      const job = await jobOf('DUP-2');
      expect(job.returnvalue).toMatchObject({ outcome: 'unchanged' });
      expect(world.sandbox.admin.counters().requests).toBe(before.requests);
      expect(orderState(world.sandbox.admin.state(), 'DUP-2').orders).toHaveLength(1);
    });
  });

  describe('when an equivalent record comes again after the progress in Redis expired', () => {
    it('reads the order back on the duplicate and changes nothing', async () => {
      await world.add('orders', [orderRecord('DUP-3')]);
      await world.idle();
      await world.redis.del(orderKeys(world.keys).progress('DUP-3'));
      // Same order, its location named by URL this time: a new job for the same orderId.
      const a02 = world.sandbox.admin.state().facilities.find((f) => f.facilityName === 'A-02')!.facilityUrl;
      const variant = orderRecord('DUP-3', [
        { productId: 'MUG-BLUE', quantity: 2, unitPrice: 12.5, location: 'Main Warehouse / A-01' },
        { productId: 'SKU-0003', quantity: 1, unitPrice: 4, location: a02 },
      ]);
      await world.add('orders', [variant]);
      await world.idle();
      const job = await jobOf('DUP-3');
      expect(job.returnvalue).toMatchObject({ outcome: 'unchanged' });
      const [trace] = await world.traces('orders', job.id!);
      expect(trace!.calls.map((c: { method: string; status: number }) => `${c.method} ${c.status}`)).toEqual([
        'POST 400',
        'GET 200',
        'GET 200',
      ]);
      const { orders, shipments } = orderState(world.sandbox.admin.state(), 'DUP-3');
      expect([orders.length, shipments.length]).toEqual([1, 1]);
    });
  });

  describe('when the same order comes again in other words after it was synced', () => {
    it('compares it with the order and the shipment (two reads) and changes nothing', async () => {
      await world.add('orders', [orderRecord('DUP-4')]);
      await world.idle();
      const before = world.sandbox.admin.counters();
      // Lines in another order, the origin by URL: a new job, the same order.
      const main = world.sandbox.admin.state().facilities.find((f) => f.facilityName === 'Main Warehouse')!.facilityUrl;
      const [first, second] = orderRecord('DUP-4').lines as unknown[];
      await world.add('orders', [
        orderRecord('DUP-4', [second as Record<string, unknown>, first as Record<string, unknown>], { origin: main }),
      ]);
      await world.idle();
      const job = await jobOf('DUP-4');
      expect(job.returnvalue).toMatchObject({ outcome: 'unchanged' });
      const after = world.sandbox.admin.counters();
      expect([after.byClass.post - before.byClass.post, after.byClass.get - before.byClass.get]).toEqual([0, 2]);
    });
  });

  describe('when the progress in Redis names an order the service no longer has', () => {
    it('starts over and syncs the order once', async () => {
      const gone = {
        step: 'shipped',
        pending: '',
        recordHash: 'another-record',
        orderUrl: '/demo/api/order/GONE-1',
        shipmentUrl: '/demo/api/shipment/SHP-GONE-1',
      };
      await world.redis.hset(orderKeys(world.keys).progress('GONE-1'), gone);
      await world.add('orders', [orderRecord('GONE-1')]);
      await world.idle();
      expect((await jobOf('GONE-1')).returnvalue).toMatchObject({ outcome: 'synced' });
      const { orders, shipments } = orderState(world.sandbox.admin.state(), 'GONE-1');
      expect([orders.map((o) => o.statusId), shipments.map((x) => x.statusId)]).toEqual([['ORDER_COMPLETED'], ['SHIPMENT_SHIPPED']]);
    });
  });

  describe('when a re-delivery would change a completed order', () => {
    it('fails at once saying what differs and that completed orders cannot be modified', async () => {
      const changed = orderRecord('DUP-1', [{ productId: 'MUG-BLUE', quantity: 5, unitPrice: 12.5, location: 'Main Warehouse / A-01' }]);
      feed.append('orders', [changed]);
      await pull();
      await world.idle();
      const job = await jobOf('DUP-1');
      expect(job.failedReason).toMatch(/^\[ORDER_COMPLETED\] order DUP-1 is completed/);
      expect(job.failedReason).toContain('lines[MUG-BLUE] quantity x unitPrice: service has 2 x 12.5, record has 5 x 12.5');
      expect(job.failedReason).toContain('lines[SKU-0003] quantity x unitPrice: service has 1 x 4, record has none');
      expect(job.failedReason).toContain('completed orders cannot be modified until made editable again');
      expect(job.attemptsMade).toBe(1);
      const { orders } = orderState(world.sandbox.admin.state(), 'DUP-1');
      expect(orders).toHaveLength(1);
      expect(orders[0]!.orderItemList.map((i) => i.quantity)).toEqual([2, 1]);
    });
  });

  describe('when a corrected record changes only the order date or the shipment name of a synced order', () => {
    it('fails at once naming that field, and changes nothing', async () => {
      await world.add('orders', [orderRecord('DATE-1', undefined, { orderDate: '2026-11-20T14:03:11' })]);
      await world.idle();
      expect((await jobOf('DATE-1')).returnvalue).toMatchObject({ outcome: 'synced' });
      const before = world.sandbox.admin.counters();
      await world.add('orders', [orderRecord('DATE-1', undefined, { orderDate: '2026-11-21T08:00:00', shipmentIdUser: 'DATE-1-B' })]);
      await world.idle();
      const job = await jobOf('DATE-1');
      expect(job.failedReason).toMatch(/^\[ORDER_COMPLETED\] order DATE-1 is completed/);
      expect(job.failedReason).toContain('orderDate: service has 2026-11-20T14:03:11, record has 2026-11-21T08:00:00');
      expect(job.failedReason).toContain('shipmentIdUser: service has DATE-1-1, record has DATE-1-B');
      expect(world.sandbox.admin.counters().byClass.post).toBe(before.byClass.post);
    });
  });

  describe('when the service has a different order under the same orderId', () => {
    it('fails at once with a conflict naming each difference, and creates nothing', async () => {
      // Another system created CNF-1 with other lines and left it open.
      const state = world.sandbox.admin.state();
      const north = state.facilities.find((f) => f.facilityName === 'North Depot')!.facilityUrl;
      await world.client.createOrder({
        orderId: 'CNF-1',
        orderTypeId: 'SALES_ORDER',
        originFacilityUrl: north,
        orderItemList: [{ productId: 'MUG-BLUE', productUrl: '/demo/api/product/MUG-BLUE', unitPrice: 12.5, quantity: 1 }],
      });
      const before = world.sandbox.admin.counters();
      await world.add('orders', [orderRecord('CNF-1')]);
      await world.idle();
      const job = await jobOf('CNF-1');
      expect(job.failedReason).toMatch(/^\[CONFLICT\] order CNF-1: the order already exists in the service and differs from the record: /);
      expect(job.failedReason).toContain(`origin: service has ${north}, record has`);
      expect(job.failedReason).toContain('lines[MUG-BLUE] quantity x unitPrice: service has 1 x 12.5, record has 2 x 12.5');
      expect(job.attemptsMade).toBe(1);
      const after = world.sandbox.admin.counters();
      expect(after.creates.shipment).toBe(before.creates.shipment);
      expect(orderState(world.sandbox.admin.state(), 'CNF-1').orders[0]!.statusId).toBe('ORDER_CREATED');
    });
  });

  describe('when a corrected record arrives for an order still open in the service', () => {
    it('fails with a conflict on what differs and leaves the order as it was', async () => {
      // The first version stops after its shipment: a 503 holds the ship step while the correction comes.
      world.sandbox.admin.setFaults([{ kind: 'status-503', method: 'POST', path: '/api/shipment/[^/]+$' }]);
      await world.add('orders', [orderRecord('FIX-1')]);
      for (let i = 0; i < 100 && !(await world.redis.hget(orderKeys(world.keys).progress('FIX-1'), 'step'))?.startsWith('shipment'); i++)
        await new Promise((r) => setTimeout(r, 20));
      const fixed = orderRecord('FIX-1', [
        { productId: 'MUG-BLUE', quantity: 2, unitPrice: 12.5, location: 'Main Warehouse / A-03' },
        { productId: 'SKU-0003', quantity: 1, unitPrice: 4, location: 'A-02' },
      ]);
      await world.add('orders', [fixed]);
      for (let i = 0; i < 100 && !(await jobOf('FIX-1')).finishedOn; i++) await new Promise((r) => setTimeout(r, 20));
      world.sandbox.admin.setFaults([]);
      await world.idle();
      const jobs = (await world.jobs('orders')).filter((j) => (j.data.record as { orderId?: string }).orderId === 'FIX-1');
      const failed = jobs.filter((j) => j.failedReason && j.finishedOn && !j.returnvalue);
      expect(failed, JSON.stringify(jobs.map((j) => [j.failedReason, j.returnvalue, j.attemptsMade]))).toHaveLength(1);
      expect(failed[0]!.failedReason).toMatch(
        /^\[CONFLICT\] order FIX-1: the shipment already exists in the service and differs from the record: /,
      );
      expect(failed[0]!.failedReason).toContain('shipment lines[MUG-BLUE at ');
      const { orders, shipments } = orderState(world.sandbox.admin.state(), 'FIX-1');
      expect([orders.length, shipments.length]).toEqual([1, 1]);
      expect(orders[0]!.statusId).toBe('ORDER_COMPLETED');
    });
  });
});
