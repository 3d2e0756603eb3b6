import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderState } from '../../helpers/order-records.js';
import { describeEachProfile, testWorld, type TestWorld } from '../../helpers/test-world.js';

const A01 = 'Main Warehouse / A-01';
const LINE = { productId: 'MUG-BLUE', quantity: 3, location: A01 };

/**
 * A snapshot that ships and returns in one job: the return's variance is not the job's first write, so its marker
 * was set by the write before it (chaos seed 29, LF-29-00064: F2 shipped, then the variance's answer lost, and the
 * retry sent it again). Fulfilled at once, one shipment of all its lines, a return of one unit restocked.
 */
function shippedAndReturned(orderId: string, returnedAt?: string): Record<string, unknown> {
  return {
    orderId,
    status: 'fulfilled',
    updatedAt: '2026-11-20T10:00:00',
    origin: 'Main Warehouse',
    lines: [{ ...LINE, unitPrice: 12.5 }],
    fulfillments: [{ fulfillmentId: `${orderId}-F1`, lines: [LINE] }],
    returns: [{ returnId: `${orderId}-R1`, restock: true, ...(returnedAt ? { returnedAt } : {}), lines: [{ ...LINE, quantity: 1 }] }],
  };
}

describeEachProfile("an order's return sent after other writes of its job", (profile) => {
  let world: TestWorld;
  let stock: number;
  let variances: number;
  let fired = 0;
  beforeAll(async () => {
    world = await testWorld(`life-return-lost-${profile}`, { streams: ['orders'], sandbox: { profile } });
    await world.deps.catalog.refresh();
    stock = world.sandbox.admin.stockOnHand(world.facility('A-01'), world.product('MUG-BLUE'));
    variances = world.sandbox.admin.state().variances.length;
    // The variance is applied, its answer lost.
    world.sandbox.admin.setFaults([{ kind: 'apply-then-drop', method: 'POST', path: '/api/inventoryvariance$', times: 1 }]);
    await world.add('orders', [shippedAndReturned('RET-LOST', '2026-11-23T10:00:00')]);
    await world.idle(30_000);
    fired = world.sandbox.admin.faults()[0]!.fired;
    world.sandbox.admin.setFaults([]);
    // No returnedAt: dated the day its variance is sent.
    await world.add('orders', [shippedAndReturned('RET-UNDATED')]);
    await world.idle(30_000);
  }, 60_000);
  afterAll(async () => {
    await world?.close();
  });

  describe('when the variance loses its answer', () => {
    it('restocks the return once: one variance, stock moved by what shipped less what came back', () => {
      expect(fired).toBe(1);
      const added = world.sandbox.admin
        .state()
        .variances.slice(variances)
        .filter((v) => v.physicalInventoryDate.startsWith('2026-11-23'));
      expect(added).toHaveLength(1);
      expect(orderState(world.sandbox.admin.state(), 'RET-LOST').orders.map((o) => o.statusId)).toEqual(['ORDER_COMPLETED']);
    });
  });

  describe('when the return has no returnedAt', () => {
    it('dates it the day it is sent and restocks it once', () => {
      expect(world.sandbox.admin.state().variances.length - variances).toBe(2);
      expect(world.sandbox.admin.stockOnHand(world.facility('A-01'), world.product('MUG-BLUE'))).toBe(stock - 2 * (3 - 1));
    });
  });

  it('fails no job', async () => {
    const failed = (await world.jobs('orders')).filter((j) => j.failedReason);
    expect(failed.map((j) => j.failedReason)).toEqual([]);
  });
});
