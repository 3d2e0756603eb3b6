import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderState } from '../../helpers/order-records.js';
import { jobOf, testWorld, type TestWorld } from '../../helpers/test-world.js';

const A01 = 'Main Warehouse / A-01';
const LINE = { productId: 'MUG-BLUE', quantity: 3, location: A01 };
/** The variance lands this long after its connection was dropped: after the read made at once, before lateWriteMs. */
const LANDS_AFTER_MS = 500;
const LATE_WRITE_MS = 2_000;

/** Fulfilled at once, one shipment of all its lines, a return of one unit restocked on 2026-11-23. */
function shippedAndReturned(orderId: string): Record<string, unknown> {
  return {
    orderId,
    status: 'fulfilled',
    updatedAt: '2026-11-20T10:00:00',
    origin: 'Main Warehouse',
    lines: [{ ...LINE, unitPrice: 12.5 }],
    fulfillments: [{ fulfillmentId: `${orderId}-F1`, lines: [LINE] }],
    returns: [{ returnId: `${orderId}-R1`, restock: true, returnedAt: '2026-11-23T10:00:00', lines: [{ ...LINE, quantity: 1 }] }],
  };
}

/**
 * Chaos seed 7, LF-7-00136-R1: the variance's answer was lost, the read made at once did not find it, the service
 * applied it after that read, and the retry created it again (the return restocked twice). The sandbox's
 * `drop-then-apply` does the same: the connection is dropped, and the variance is created LANDS_AFTER_MS later.
 */
describe('a return whose variance lands after its answer was lost', () => {
  let world: TestWorld;
  let stock: number;
  let variances: number;
  let fired = 0;
  beforeAll(async () => {
    world = await testWorld('return-late', { streams: ['orders'], lateWriteMs: LATE_WRITE_MS });
    await world.deps.catalog.refresh();
    stock = world.sandbox.admin.stockOnHand(world.facility('A-01'), world.product('MUG-BLUE'));
    variances = world.sandbox.admin.state().variances.length;
    world.sandbox.admin.setFaults([
      { kind: 'drop-then-apply', method: 'POST', path: '/api/inventoryvariance$', times: 1, hangMs: LANDS_AFTER_MS },
    ]);
    await world.add('orders', [shippedAndReturned('RET-LATE')]);
    await world.idle(30_000);
    // A variance sent again would have landed by then too.
    await new Promise((r) => setTimeout(r, LANDS_AFTER_MS + 500));
    fired = world.sandbox.admin.faults()[0]!.fired;
  }, 60_000);
  afterAll(async () => {
    await world?.close();
  });

  it('restocks the return once: one variance, stock moved by what shipped less what came back', () => {
    expect(fired).toBe(1);
    const added = world.sandbox.admin.state().variances.slice(variances);
    expect(added.map((v) => v.physicalInventoryDate)).toEqual(['2026-11-23T19:00:00.000']);
    expect(world.sandbox.admin.stockOnHand(world.facility('A-01'), world.product('MUG-BLUE'))).toBe(stock - (3 - 1));
    expect(orderState(world.sandbox.admin.state(), 'RET-LATE').orders.map((o) => o.statusId)).toEqual(['ORDER_COMPLETED']);
  });

  it('reads again once the late window has passed, rather than sending again, and spends no attempt', async () => {
    const job = await jobOf(world, 'orders', 'RET-LATE');
    expect(job.failedReason).toBeFalsy();
    expect(job.attemptsMade).toBe(1); // the one that completed
    const notes = (await world.traces('orders', String(job.id))).flatMap((t) => (t.notes ?? []).map((n: { message: string }) => n.message));
    expect(notes.some((m: string) => /may still apply it .*read again in \d+ ms/.test(m))).toBe(true);
    expect(notes.some((m: string) => m.includes('had been applied; carrying on'))).toBe(true);
    const posts = world.calls.filter((c) => c.method === 'POST' && /inventoryvariance$/.test(c.path));
    expect(posts).toHaveLength(1);
  });
});
