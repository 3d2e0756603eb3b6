import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderRecord, orderState } from '../../helpers/order-records.js';
import { testWorld, type TestWorld } from '../../helpers/test-world.js';

describe('order sync', () => {
  describe('when the service answers a storm of 429s', () => {
    let world: TestWorld;
    const ids = Array.from({ length: 12 }, (_, i) => `RL-${i + 1}`);

    beforeAll(async () => {
      // One attempt only: a 429 that consumed an attempt would fail its job.
      world = await testWorld('order-429', { streams: ['orders'], jobs: { attempts: 1, concurrency: ids.length } });
      await world.deps.catalog.refresh();
      // The client has no budget of its own here, so its 12 jobs at once run into the service's: 3 POSTs per 400 ms (a storm even on a loaded machine).
      world.sandbox.admin.setBudgets({ post: { limit: 3, windowMs: 400 }, resetUnit: 'ms' });
      await world.add(
        'orders',
        ids.map((id) => orderRecord(id)),
      );
      await world.idle(40_000);
    }, 60_000);
    afterAll(async () => {
      await world?.close();
    });

    it('was a storm', () => {
      expect(world.sandbox.admin.counters().rateLimited).toBeGreaterThan(ids.length);
    });

    it('syncs every order, once', () => {
      const state = world.sandbox.admin.state();
      for (const id of ids) {
        const { orders, shipments } = orderState(state, id);
        expect(orders.map((o) => o.statusId)).toEqual(['ORDER_COMPLETED']);
        expect(shipments.map((s) => s.statusId)).toEqual(['SHIPMENT_SHIPPED']);
      }
      expect(world.sandbox.admin.counters().creates.order).toBe(ids.length);
    });

    it('consumes no attempt on a 429', async () => {
      const jobs = await world.jobs('orders');
      expect(jobs).toHaveLength(ids.length);
      let limitedTries = 0;
      for (const job of jobs) {
        expect(await job.getState()).toBe('completed');
        const all = await world.traces('orders', job.id!);
        // Every try ran as attempt 1: the 429s before it spent nothing.
        expect(all.every((t) => t.attempt === 1)).toBe(true);
        limitedTries += all.filter((t) => t.error?.code === 'RATE_LIMITED').length;
      }
      expect(limitedTries).toBeGreaterThan(0);
    });
  });
});
