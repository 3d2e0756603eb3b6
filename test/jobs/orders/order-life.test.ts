import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from 'bullmq';
import { orderSnapshot, orderState } from '../../helpers/order-records.js';
import { describeEachProfile, testWorld, type TestWorld } from '../../helpers/test-world.js';
import { readLifeLog } from '../../../jobs/orders/life-log.js';
import type { JobData } from '../../../src/queue/queues.js';
import type { JobResult } from '../../../src/queue/job-context.js';

const A01 = 'Main Warehouse / A-01';
const A02 = 'A-02';
const BLUE = { productId: 'MUG-BLUE', unitPrice: 12.5, location: A01 };
const SKU3 = { productId: 'SKU-0003', unitPrice: 4, location: A02 };

const snap = orderSnapshot;

describeEachProfile("an order's life", (profile) => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await testWorld(`order-life-${profile}`, { streams: ['orders'], sandbox: { profile } });
    await world.deps.catalog.refresh();
  });
  afterAll(async () => {
    await world?.close();
  });

  /** Queues the records one after the other, each after the one before is done. */
  async function sync(...records: Record<string, unknown>[]) {
    for (const r of records) {
      await world.add('orders', [r]);
      await world.idle();
    }
  }
  const state = (id: string) => orderState(world.sandbox.admin.state(), id);
  const posts = () => world.sandbox.admin.counters().byClass.post;
  async function jobsOf(id: string): Promise<Array<Job<JobData, JobResult>>> {
    return (await world.jobs('orders')).filter((j) => (j.data.record as { orderId?: string }).orderId === id);
  }
  async function failedOf(id: string): Promise<Job<JobData, JobResult> | undefined> {
    return (await jobsOf(id)).find((j) => j.failedReason);
  }

  describe('when an open order arrives', () => {
    let cost = 0;
    beforeAll(async () => {
      const before = posts();
      await sync(snap('LIFE-OPEN'));
      cost = posts() - before;
    });
    it('is created and committed, its units reserved, nothing shipped', () => {
      const { orders, shipments } = state('LIFE-OPEN');
      expect(orders).toHaveLength(1);
      expect(orders[0]!.statusId).toBe('ORDER_LOCKED');
      expect(orders[0]!.orderItemList.map((i) => [i.productId, i.quantity])).toEqual([
        ['MUG-BLUE', 3],
        ['SKU-0003', 1],
      ]);
      expect(shipments).toHaveLength(0);
    });
    it('costs 2 POSTs (create, lock)', () => {
      expect(cost).toBe(2);
    });
    it("reserves its units in the service's stock", async () => {
      const rows = await world.client.listInventoryItems();
      const reserved = (productUrl: string) =>
        rows.filter((r) => r.productUrl === productUrl).reduce((n, r) => n + (r.quantityReserved ?? 0), 0);
      expect([reserved(world.product('MUG-BLUE')), reserved(world.product('SKU-0003'))]).toEqual([3, 1]);
    });
  });

  describe('when it is shipped in parts from two places, then fulfilled', () => {
    const f1 = { fulfillmentId: 'LIFE-PARTS-F1', lines: [{ productId: 'MUG-BLUE', quantity: 2, location: A01 }] };
    const f2 = {
      fulfillmentId: 'LIFE-PARTS-F2',
      lines: [
        { productId: 'MUG-BLUE', quantity: 1, location: A01 },
        { productId: 'SKU-0003', quantity: 1, location: A02 },
      ],
    };
    let stock: number;
    beforeAll(async () => {
      stock = world.sandbox.admin.stockOnHand(world.facility('A-01'), world.product('MUG-BLUE'));
      await sync(
        snap('LIFE-PARTS', { updatedAt: '2026-11-20T10:00:00' }),
        snap('LIFE-PARTS', { updatedAt: '2026-11-20T11:00:00', fulfillments: [f1] }),
      );
    });
    it('ships the first part once, leaving the order committed', () => {
      const { orders, shipments } = state('LIFE-PARTS');
      expect(orders[0]!.statusId).toBe('ORDER_LOCKED');
      expect(shipments.map((s) => [s.shipmentIdUser, s.statusId])).toEqual([['LIFE-PARTS-F1', 'SHIPMENT_SHIPPED']]);
      expect(world.sandbox.admin.stockOnHand(world.facility('A-01'), world.product('MUG-BLUE'))).toBe(stock - 2);
    });
    it('ships the second part and completes the order when fulfilled, with one shipment per fulfillment', async () => {
      await sync(snap('LIFE-PARTS', { status: 'fulfilled', updatedAt: '2026-11-20T12:00:00', fulfillments: [f1, f2] }));
      // A re-delivery of every snapshot changes nothing.
      await sync(snap('LIFE-PARTS', { status: 'fulfilled', updatedAt: '2026-11-20T12:00:00', fulfillments: [f1, f2] }));
      const { orders, shipments } = state('LIFE-PARTS');
      expect(orders[0]!.statusId).toBe('ORDER_COMPLETED');
      expect(shipments.map((s) => [s.shipmentIdUser, s.statusId]).sort()).toEqual([
        ['LIFE-PARTS-F1', 'SHIPMENT_SHIPPED'],
        ['LIFE-PARTS-F2', 'SHIPMENT_SHIPPED'],
      ]);
      expect(
        shipments
          .find((s) => s.shipmentIdUser === 'LIFE-PARTS-F2')!
          .shipmentItemList.map((i) => i.facilityUrl)
          .sort(),
      ).toEqual([world.facility('A-01'), world.facility('A-02')].sort());
      expect(world.sandbox.admin.stockOnHand(world.facility('A-01'), world.product('MUG-BLUE'))).toBe(stock - 3);
    });
  });

  describe("when a fulfilled order's fulfillments do not cover its lines", () => {
    it('is a bad record naming the difference, and nothing is written', async () => {
      const before = posts();
      const f1 = { fulfillmentId: 'LIFE-GAP-F1', lines: [{ productId: 'MUG-BLUE', quantity: 2, location: A01 }] };
      await sync(snap('LIFE-GAP', { status: 'fulfilled', fulfillments: [f1] }));
      expect(posts() - before).toBe(0);
      expect((await failedOf('LIFE-GAP'))?.failedReason).toMatch(
        /^\[BAD_RECORD\] record LIFE-GAP: fulfillments: a fulfilled order's fulfillments ship 2 of MUG-BLUE at Main Warehouse \/ A-01, not the lines' 3/,
      );
    });
  });

  describe('when an open order is edited', () => {
    beforeAll(async () => {
      await sync(
        snap('LIFE-EDIT', { updatedAt: '2026-11-20T10:00:00' }),
        // A quantity raised, a line dropped.
        snap('LIFE-EDIT', { updatedAt: '2026-11-20T10:30:00', lines: [{ ...BLUE, quantity: 5 }] }),
      );
    });
    it("changes the order's lines and commits it again", async () => {
      const { orders } = state('LIFE-EDIT');
      expect(orders).toHaveLength(1);
      expect(orders[0]!.statusId).toBe('ORDER_LOCKED');
      expect(orders[0]!.orderItemList.map((i) => [i.productId, i.quantity])).toEqual([['MUG-BLUE', 5]]);
      expect(await failedOf('LIFE-EDIT')).toBeUndefined();
    });
  });

  describe('when an edit goes below a shipped part', () => {
    const f1 = { fulfillmentId: 'LIFE-BELOW-F1', lines: [{ productId: 'MUG-BLUE', quantity: 3, location: A01 }] };
    beforeAll(async () => {
      await sync(
        snap('LIFE-BELOW', { updatedAt: '2026-11-20T10:00:00', fulfillments: [f1] }),
        snap('LIFE-BELOW', { updatedAt: '2026-11-20T11:00:00', lines: [{ ...BLUE, quantity: 1 }] }),
      );
    });
    it('leaves the order as it is and fails the job for a person, naming the line', async () => {
      const { orders } = state('LIFE-BELOW');
      expect(orders[0]!.orderItemList.map((i) => [i.productId, i.quantity])).toEqual([
        ['MUG-BLUE', 3],
        ['SKU-0003', 1],
      ]);
      const failed = await failedOf('LIFE-BELOW');
      expect(failed?.failedReason).toMatch(/^\[EDIT_BELOW_SHIPPED\] order LIFE-BELOW: .*MUG-BLUE: 1 ordered, 3 shipped/);
    });
  });

  describe('when an order is cancelled', () => {
    it('is never created when it was cancelled before it was seen', async () => {
      const before = posts();
      await sync(snap('LIFE-NEVER', { status: 'cancelled' }));
      expect(state('LIFE-NEVER').orders).toHaveLength(0);
      expect(posts() - before).toBe(0);
      const [job] = await jobsOf('LIFE-NEVER');
      expect(job!.returnvalue.outcome).toBe('skipped');
    });
    it('is cancelled when it was open', async () => {
      await sync(
        snap('LIFE-CANCEL', { updatedAt: '2026-11-20T10:00:00' }),
        snap('LIFE-CANCEL', { status: 'cancelled', updatedAt: '2026-11-20T11:00:00' }),
      );
      expect(state('LIFE-CANCEL').orders[0]!.statusId).toBe('ORDER_CANCELLED');
    });
    it('is left to a person, nothing cancelled, when a part is shipped', async () => {
      const f1 = { fulfillmentId: 'LIFE-CXL-F1', lines: [{ productId: 'MUG-BLUE', quantity: 1, location: A01 }] };
      await sync(
        snap('LIFE-CXL', { updatedAt: '2026-11-20T10:00:00', fulfillments: [f1] }),
        snap('LIFE-CXL', { status: 'cancelled', updatedAt: '2026-11-20T11:00:00', fulfillments: [f1] }),
      );
      const { orders, shipments } = state('LIFE-CXL');
      expect(orders[0]!.statusId).toBe('ORDER_LOCKED');
      expect(shipments.map((s) => s.statusId)).toEqual(['SHIPMENT_SHIPPED']);
      expect((await failedOf('LIFE-CXL'))?.failedReason).toMatch(/^\[CANCEL_AFTER_SHIPPED\] order LIFE-CXL: .*LIFE-CXL-F1 is shipped/);
    });
  });

  describe('when a fulfilled order is returned', () => {
    const f1 = {
      fulfillmentId: 'LIFE-RET-1',
      lines: [
        { productId: 'MUG-BLUE', quantity: 3, location: A01 },
        { productId: 'SKU-0003', quantity: 1, location: A02 },
      ],
    };
    const r1 = {
      returnId: 'LIFE-RET-R1',
      restock: true,
      returnedAt: '2026-11-23T10:00:00',
      lines: [{ productId: 'MUG-BLUE', quantity: 1, location: A01 }],
    };
    const r2 = { returnId: 'LIFE-RET-R2', restock: false, lines: [{ productId: 'SKU-0003', quantity: 1, location: A02 }] };
    let stock: number;
    let other: number;
    let variances: number;
    beforeAll(async () => {
      await sync(snap('LIFE-RET', { status: 'fulfilled', updatedAt: '2026-11-20T10:00:00', fulfillments: [f1] }));
      stock = world.sandbox.admin.stockOnHand(world.facility('A-01'), world.product('MUG-BLUE'));
      other = world.sandbox.admin.stockOnHand(world.facility('A-02'), world.product('SKU-0003'));
      variances = world.sandbox.admin.state().variances.length;
      const returned = snap('LIFE-RET', { status: 'fulfilled', updatedAt: '2026-11-23T10:05:00', fulfillments: [f1], returns: [r1, r2] });
      await sync(returned, { ...returned, updatedAt: '2026-11-23T10:06:00' });
    });
    it('puts restocked units back once, in one variance dated 19:00 of the return', () => {
      expect(world.sandbox.admin.stockOnHand(world.facility('A-01'), world.product('MUG-BLUE'))).toBe(stock + 1);
      const added = world.sandbox.admin.state().variances.slice(variances);
      expect(added).toHaveLength(1);
      expect(added[0]!.physicalInventoryDate).toMatch(/^2026-11-23T19:00:00/);
    });
    it('leaves the order completed and changes no stock for a return without restock', () => {
      expect(state('LIFE-RET').orders[0]!.statusId).toBe('ORDER_COMPLETED');
      expect(world.sandbox.admin.stockOnHand(world.facility('A-02'), world.product('SKU-0003'))).toBe(other);
    });
    it('takes a return notice (a refund told on its own) once', async () => {
      const r3 = {
        returnId: 'LIFE-RET-R3',
        restock: true,
        returnedAt: '2026-11-24T09:00:00',
        lines: [{ productId: 'MUG-BLUE', quantity: 2, location: A01 }],
      };
      await sync({ orderId: 'LIFE-RET', updatedAt: '2026-11-24T09:00:00', returns: [r3] }, { orderId: 'LIFE-RET', returns: [r3] });
      expect(world.sandbox.admin.stockOnHand(world.facility('A-01'), world.product('MUG-BLUE'))).toBe(stock + 3);
    });
  });

  describe('when snapshots come out of order', () => {
    it('changes nothing for an older snapshot after a newer one', async () => {
      await sync(
        snap('LIFE-LATE', { updatedAt: '2026-11-20T12:00:00', lines: [{ ...BLUE, quantity: 4 }] }),
        snap('LIFE-LATE', { updatedAt: '2026-11-20T09:00:00', lines: [{ ...BLUE, quantity: 9 }] }),
      );
      expect(state('LIFE-LATE').orders[0]!.orderItemList.map((i) => i.quantity)).toEqual([4]);
      const log = await readLifeLog(world.redis, world.keys, 'LIFE-LATE');
      expect(log.map((e) => [e.updatedAt, e.outcome, !!e.older])).toEqual([
        ['2026-11-20T09:00:00', 'skipped', true],
        ['2026-11-20T12:00:00', 'synced', false],
      ]);
    });
    it('applies a newer snapshot that arrives while an older one runs after it, not before', async () => {
      world.sandbox.admin.setLatency({ ms: 150 });
      try {
        await world.add('orders', [snap('LIFE-RACE', { updatedAt: '2026-11-20T10:00:00' })]);
        await new Promise((r) => setTimeout(r, 100));
        await world.add('orders', [snap('LIFE-RACE', { updatedAt: '2026-11-20T10:05:00', lines: [{ ...BLUE, quantity: 7 }] })]);
        await world.idle();
      } finally {
        world.sandbox.admin.setLatency(null);
      }
      const { orders } = state('LIFE-RACE');
      expect(orders).toHaveLength(1);
      expect(orders[0]!.statusId).toBe('ORDER_LOCKED');
      expect(orders[0]!.orderItemList.map((i) => [i.productId, i.quantity])).toEqual([['MUG-BLUE', 7]]);
      const log = await readLifeLog(world.redis, world.keys, 'LIFE-RACE');
      expect(log.map((e) => e.outcome)).toEqual(['synced', 'synced']);
    });
  });

  describe("when a return notice comes before the order's snapshots", () => {
    it('restocks it and still takes the older snapshots of the order', async () => {
      const stock = world.sandbox.admin.stockOnHand(world.facility('A-01'), world.product('MUG-BLUE'));
      const r = { returnId: 'LIFE-EARLY-R1', restock: true, lines: [{ productId: 'MUG-BLUE', quantity: 1, location: A01 }] };
      await sync(
        { orderId: 'LIFE-EARLY', updatedAt: '2026-11-25T10:00:00', returns: [r] },
        snap('LIFE-EARLY', { updatedAt: '2026-11-20T10:00:00' }),
      );
      expect(state('LIFE-EARLY').orders.map((o) => o.statusId)).toEqual(['ORDER_LOCKED']);
      expect(world.sandbox.admin.stockOnHand(world.facility('A-01'), world.product('MUG-BLUE'))).toBe(stock + 1);
    });
  });

  describe('when a completed order is changed', () => {
    it('fails for a person and changes nothing', async () => {
      await sync(
        snap('LIFE-DONE', { status: 'fulfilled', updatedAt: '2026-11-20T10:00:00' }),
        snap('LIFE-DONE', { status: 'open', updatedAt: '2026-11-20T11:00:00', lines: [{ ...BLUE, quantity: 8 }] }),
      );
      expect(state('LIFE-DONE').orders[0]!.statusId).toBe('ORDER_COMPLETED');
      expect(state('LIFE-DONE').orders[0]!.orderItemList).toHaveLength(2);
      expect((await failedOf('LIFE-DONE'))?.failedReason).toMatch(/^\[ORDER_COMPLETED\] order LIFE-DONE: the record changes its lines/);
    });
  });

  describe('what each story costs', () => {
    const counts = () => world.sandbox.admin.counters().byClass;
    async function cost(...records: Record<string, unknown>[]) {
      const before = counts();
      await sync(...records);
      const after = counts();
      return { posts: after.post - before.post, gets: after.get - before.get };
    }
    it('open → edited → shipped in two parts → fulfilled → returned: 11 POSTs, no GET', async () => {
      const id = 'COST-LIFE';
      const edited = [
        { ...BLUE, quantity: 4 },
        { ...SKU3, quantity: 1 },
      ];
      const f1 = { fulfillmentId: `${id}-F1`, lines: [{ productId: 'MUG-BLUE', quantity: 2, location: A01 }] };
      const f2 = {
        fulfillmentId: `${id}-F2`,
        lines: [
          { productId: 'MUG-BLUE', quantity: 2, location: A01 },
          { productId: 'SKU-0003', quantity: 1, location: A02 },
        ],
      };
      const r1 = { returnId: `${id}-R1`, restock: true, lines: [{ productId: 'MUG-BLUE', quantity: 1, location: A01 }] };
      const steps = [
        await cost(snap(id, { updatedAt: '2026-11-20T10:00:00' })),
        await cost(snap(id, { updatedAt: '2026-11-20T11:00:00', lines: edited })),
        await cost(snap(id, { updatedAt: '2026-11-20T12:00:00', lines: edited, fulfillments: [f1] })),
        await cost(snap(id, { status: 'fulfilled', updatedAt: '2026-11-21T10:00:00', lines: edited, fulfillments: [f1, f2] })),
        await cost(
          snap(id, { status: 'fulfilled', updatedAt: '2026-11-22T10:00:00', lines: edited, fulfillments: [f1, f2], returns: [r1] }),
        ),
      ];
      expect(steps.map((c) => c.posts)).toEqual([2, 3, 2, 3, 1]);
      expect(steps.map((c) => c.gets)).toEqual([0, 0, 0, 0, 0]);
      expect(state(id).orders[0]!.statusId).toBe('ORDER_COMPLETED');
    });
    it('open → cancelled: 3 POSTs and the read of the order before the cancel', async () => {
      expect(await cost(snap('COST-CXL', { updatedAt: '2026-11-20T10:00:00' }))).toEqual({ posts: 2, gets: 0 });
      expect(await cost(snap('COST-CXL', { status: 'cancelled', updatedAt: '2026-11-20T11:00:00' }))).toEqual({ posts: 1, gets: 1 });
    });
    it('a plain order still costs 4 POSTs and no GET, and a re-delivered snapshot nothing', async () => {
      const plain = { orderId: 'COST-PLAIN', origin: 'Main Warehouse', lines: [{ ...BLUE, quantity: 1 }] };
      expect(await cost(plain)).toEqual({ posts: 4, gets: 0 });
      expect(await cost(snap('COST-AGAIN', { updatedAt: '2026-11-20T10:00:00' }))).toEqual({ posts: 2, gets: 0 });
      expect(await cost(snap('COST-AGAIN', { updatedAt: '2026-11-20T10:00:00' }))).toEqual({ posts: 0, gets: 0 });
    });
  });
});
