import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readBreaker } from '../../../src/queue/hold/refusal-state.js';
import { orderRecord, orderState } from '../../helpers/order-records.js';
import { testWorld, type TestWorld } from '../../helpers/test-world.js';

/** Issue 20, item 5: bad records fail record by record and never pause the stream (the breaker's threshold is 10). */
let world: TestWorld;
beforeEach(async () => {
  world = await testWorld('bad-storm', { streams: ['orders'], jobs: { concurrency: 4 } });
});
afterEach(async () => {
  await world.close();
});

describe('order sync, when a storm of 50 bad records arrives in a row', () => {
  it('fails each as BAD_RECORD, does not pause the stream, and syncs the good order after them', async () => {
    const unknown = Array.from({ length: 25 }, (_, i) =>
      orderRecord(`BAD-P-${i}`, [{ productId: `NO-SUCH-${i}`, quantity: 1, unitPrice: 1, location: 'A-01' }]),
    );
    const malformed = Array.from({ length: 25 }, (_, i) => ({ orderId: `BAD-S-${i}`, origin: 'Main Warehouse', lines: 'not a list' }));
    await world.add('orders', [...unknown, ...malformed]);
    await world.idle();
    await world.add('orders', [orderRecord('GOOD-1')]);
    await world.idle();
    const jobs = await world.jobs('orders');
    const failed = jobs.filter((j) => j.failedReason);
    expect(failed).toHaveLength(50);
    expect(failed.every((j) => j.failedReason!.startsWith('[BAD_RECORD]'))).toBe(true);
    expect(await world.queues.get('orders').isPaused()).toBe(false);
    expect(await readBreaker(world.redis, world.keys, 'orders')).toMatchObject({ paused: false, refusals: 0 });
    const { orders } = orderState(world.sandbox.admin.state(), 'GOOD-1');
    expect(orders.map((o) => o.statusId)).toEqual(['ORDER_COMPLETED']);
  });
});
