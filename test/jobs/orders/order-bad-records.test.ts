import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HINTS, RECORD_HINT } from '../../../src/errors/error-hints.js';
import { showJob } from '../../../src/ops/job-inspect.js';
import { openStreamQueues } from '../../../src/queue/stream-queues.js';
import { orderKind } from '../../../jobs/orders/order-kind.js';
import { orderRecord, orderState } from '../../helpers/order-records.js';
import { testWorld, type TestWorld } from '../../helpers/test-world.js';

const line = (over: Record<string, unknown> = {}) => ({
  productId: 'MUG-BLUE',
  quantity: 1,
  unitPrice: 12.5,
  location: 'Main Warehouse / A-01',
  ...over,
});

/**
 * One bad record of each kind, each with what its failure must say, and which hint it gets: `catalog` when the record
 * names what the service lacks (add it or map it), `record` when the record is wrong in itself.
 */
const BAD: Array<{ kind: string; record: Record<string, unknown>; reason: RegExp; hint: 'catalog' | 'record' }> = [
  {
    kind: 'an unknown product',
    record: orderRecord('BAD-PRODUCT', [line(), line({ productId: 'NO-SUCH-SKU' })]),
    reason: /^\[BAD_RECORD\] record BAD-PRODUCT: lines\.1\.productId: "NO-SUCH-SKU" is an unknown product/,
    hint: 'catalog',
  },
  {
    kind: 'an origin that is a location',
    record: orderRecord('BAD-ORIGIN', [line()], { origin: 'Main Warehouse / A-01' }),
    reason:
      /^\[BAD_RECORD\] record BAD-ORIGIN: origin: "Main Warehouse \/ A-01" names a location \(Main Warehouse \/ A-01\), not a magazine/,
    hint: 'catalog',
  },
  {
    kind: 'a line location that is a magazine',
    record: orderRecord('BAD-LOCATION', [line({ location: 'North Depot' })]),
    reason: /^\[BAD_RECORD\] record BAD-LOCATION: lines\.0\.location: "North Depot" names a magazine \(North Depot\), not a location/,
    hint: 'catalog',
  },
  {
    kind: 'an unknown facility',
    record: orderRecord('BAD-FACILITY', [line()], { origin: 'South Pole' }),
    reason: /^\[BAD_RECORD\] record BAD-FACILITY: origin: "South Pole" is an unknown facility/,
    hint: 'catalog',
  },
  {
    kind: "an upstream system's facility id that no mapping names",
    record: orderRecord('BAD-SHOPIFY', [line()], { origin: 'shopify:48752903' }),
    reason:
      /^\[BAD_RECORD\] record BAD-SHOPIFY: origin: "shopify:48752903" \(an upstream id: MAPPING_FILE is not set; map it to the service's facility there, docs\/mapping\.md\) is an unknown facility/,
    hint: 'catalog',
  },
  {
    kind: 'a malformed shape',
    record: orderRecord('BAD-SHAPE', [line({ quantity: -1 })]),
    reason: /^\[BAD_RECORD\] record BAD-SHAPE: lines\.0\.quantity: must be greater than 0/,
    hint: 'record',
  },
  {
    kind: 'no lines at all',
    record: { orderId: 'BAD-NOLINES', origin: 'Main Warehouse' },
    reason: /^\[BAD_RECORD\] record BAD-NOLINES: lines: /,
    hint: 'record',
  },
];

describe('order sync', () => {
  let world: TestWorld;
  const good = ['GOOD-1', 'GOOD-2', 'GOOD-3'];

  beforeAll(async () => {
    world = await testWorld('order-bad', { streams: ['orders'] });
    await world.deps.catalog.refresh();
    const before = world.sandbox.admin.counters();
    await world.add('orders', [
      orderRecord(good[0]!),
      ...BAD.map((b) => b.record).slice(0, 3),
      orderRecord(good[1]!),
      ...BAD.map((b) => b.record).slice(3),
      orderRecord(good[2]!),
    ]);
    await world.idle();
    const after = world.sandbox.admin.counters();
    // Only the good ones reached the service.
    expect(after.byClass.post - before.byClass.post).toBe(4 * good.length);
  });
  afterAll(async () => {
    await world?.close();
  });

  describe.each(BAD)('when a record has $kind', ({ record, reason, hint }) => {
    it('fails at once with a message naming the record, the field and the reason', async () => {
      const jobs = await world.jobs('orders');
      const job = jobs.find((j) => (j.data.record as { orderId?: string }).orderId === record.orderId)!;
      expect(await job.getState()).toBe('failed');
      expect(job.failedReason).toMatch(reason);
      expect(job.attemptsMade).toBe(1);
      expect(orderState(world.sandbox.admin.state(), record.orderId as string).orders).toHaveLength(0);
    });

    it(hint === 'catalog' ? 'says to add the product or facility, or map it' : 'says to fix the record, not the catalog', async () => {
      const jobs = await world.jobs('orders');
      const job = jobs.find((j) => (j.data.record as { orderId?: string }).orderId === record.orderId)!;
      const queues = openStreamQueues(world.redis, world.prefix, [orderKind]);
      const story = await showJob(queues, job.id!).finally(() => queues.close());
      expect(story?.error?.hint).toBe(hint === 'catalog' ? HINTS.BAD_RECORD : RECORD_HINT);
      expect(story?.error?.hint).toMatch(hint === 'catalog' ? /MAPPING_FILE/ : /^Fix the record where it comes from/);
    });
  });

  describe('when bad records come among good ones', () => {
    it('syncs the good ones', () => {
      const state = world.sandbox.admin.state();
      for (const id of good) {
        const { orders, shipments } = orderState(state, id);
        expect(orders.map((o) => o.statusId)).toEqual(['ORDER_COMPLETED']);
        expect(shipments.map((s) => s.statusId)).toEqual(['SHIPMENT_SHIPPED']);
      }
    });
  });

  describe('when a record has several problems', () => {
    it('names the first field and lists the others', async () => {
      await world.add('orders', [
        orderRecord('BAD-MANY', [line({ productId: 'NOPE' }), line({ location: 'Nowhere' })], { origin: 'A-01' }),
      ]);
      await world.idle();
      const job = (await world.jobs('orders')).find((j) => (j.data.record as { orderId?: string }).orderId === 'BAD-MANY')!;
      expect(job.failedReason).toMatch(/^\[BAD_RECORD\] record BAD-MANY: origin: "A-01" names a location/);
      expect(job.failedReason).toContain('also lines.0.productId: "NOPE" is an unknown product');
      expect(job.failedReason).toContain('lines.1.location: "Nowhere" is an unknown facility');
    });
  });
});
