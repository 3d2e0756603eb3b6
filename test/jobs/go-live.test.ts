import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboard } from '../../src/dashboard/dashboard-server.js';
import { summarize } from '../../src/queue/drain.js';
import type { LoggedRequest } from '../../src/sandbox/request-log.js';
import { countRecord, stockAt } from '../helpers/count-record.js';
import { orderRecord, orderState } from '../helpers/order-records.js';
import { jobOf, testWorld, type TestWorld } from '../helpers/test-world.js';
import { programKinds } from '../../jobs/kinds.js';
import { orderKeys } from '../../jobs/orders/order-keys.js';

const line = (location: string) => [{ productId: 'MUG-BLUE', quantity: 1, unitPrice: 12.5, location }];
const old = orderRecord('GL-OLD', line('Main Warehouse / A-01'), { orderDate: '2026-01-31T23:59:59' });
const onTheDay = orderRecord('GL-DAY', line('Main Warehouse / A-01'), { orderDate: '2026-02-01T00:00:00' });
const undated = orderRecord('GL-NODATE', line('Main Warehouse / A-01'));
const oldCount = countRecord('GLC-OLD', 'Main Warehouse / A-03', '2026-01-31', [['SKU-0010', 5]]);
const newCount = countRecord('GLC-NEW', 'Main Warehouse / A-04', '2026-02-01', [['SKU-0010', 6]]);

describe('the go-live floor', () => {
  let world: TestWorld;
  let requests: LoggedRequest[];
  let a03Before: number;
  const since = Date.now();

  beforeAll(async () => {
    world = await testWorld('go-live', {
      streams: ['orders', 'stock-counts'],
      goLive: { SYNC_ORDERS_SINCE: '2026-02-01', SYNC_COUNTS_SINCE: '2026-02-01' },
    });
    await world.deps.catalog.refresh();
    a03Before = stockAt(world, 'A-03', 'SKU-0010');
    const from = world.sandbox.admin.requests().length;
    await world.add('orders', [old, onTheDay, undated]);
    await world.add('stock-counts', [oldCount, newCount]);
    await world.idle();
    requests = world.sandbox.admin.requests().slice(from);
  });
  afterAll(async () => {
    await world?.close();
  });

  describe('when an order is dated before it', () => {
    it('ends skipped with the reason, the date and the floor', async () => {
      const job = await jobOf(world, 'orders', 'GL-OLD');
      expect(await job.getState()).toBe('completed');
      expect(job.returnvalue.outcome).toBe('skipped');
      expect(job.returnvalue.summary).toBe(
        'GL-OLD skipped, before go-live: orderDate 2026-01-31T23:59:59 is before SYNC_ORDERS_SINCE 2026-02-01; not written to the service',
      );
      expect(job.returnvalue.details?.goLive).toMatchObject({ field: 'orderDate', since: '2026-02-01', setting: 'SYNC_ORDERS_SINCE' });
    });

    it('makes no call, keeps no progress and writes nothing', async () => {
      const job = await jobOf(world, 'orders', 'GL-OLD');
      const [trace] = await world.traces('orders', String(job.id));
      expect(trace!.calls).toEqual([]);
      expect(trace!.result.outcome).toBe('skipped');
      expect(requests.filter((r) => JSON.stringify(r).includes('GL-OLD'))).toEqual([]);
      expect(orderState(world.sandbox.admin.state(), 'GL-OLD').orders).toEqual([]);
      expect(await world.redis.exists(orderKeys(world.keys).progress('GL-OLD'))).toBe(0);
    });
  });

  describe("when an order is dated on the floor's day, or has no date", () => {
    it('syncs it', () => {
      for (const id of ['GL-DAY', 'GL-NODATE']) {
        const { orders, shipments } = orderState(world.sandbox.admin.state(), id);
        expect(
          orders.map((o) => o.statusId),
          id,
        ).toEqual(['ORDER_COMPLETED']);
        expect(
          shipments.map((s) => s.statusId),
          id,
        ).toEqual(['SHIPMENT_SHIPPED']);
      }
    });
  });

  describe('when a count is dated before it', () => {
    it('ends skipped, posts no variance and leaves the stock alone', async () => {
      const job = await jobOf(world, 'stock-counts', 'GLC-OLD');
      expect(job.returnvalue).toMatchObject({
        outcome: 'skipped',
        summary: expect.stringContaining('before go-live: countDate 2026-01-31 is before SYNC_COUNTS_SINCE 2026-02-01'),
      });
      expect(stockAt(world, 'A-03', 'SKU-0010')).toBe(a03Before);
      const variances = requests.filter((r) => r.method === 'POST' && r.path.endsWith('/api/inventoryvariance'));
      expect(variances.map((r) => (r.body as { facilityUrl: string }).facilityUrl)).toEqual([world.facility('A-04')]);
    });

    it('syncs a count on the floor', () => {
      expect(stockAt(world, 'A-04', 'SKU-0010')).toBe(6);
    });
  });

  it("is shown on the dashboard's job page as skipped, with the reason", async () => {
    const dashboard = await startDashboard({
      kinds: programKinds,
      host: '127.0.0.1',
      port: 0,
      auth: null,
      redis: world.redis,
      prefix: world.prefix,
    });
    try {
      const job = await jobOf(world, 'orders', 'GL-OLD');
      const page = await (await fetch(`${dashboard.url}/jobs/${encodeURIComponent(String(job.id))}`)).text();
      expect(page).toContain(
        '<strong id="outcome">skipped</strong>: GL-OLD skipped, before go-live: orderDate 2026-01-31T23:59:59 is before SYNC_ORDERS_SINCE 2026-02-01',
      );
    } finally {
      await dashboard.close();
    }
  });

  it('is counted as skipped in the summary of the run', async () => {
    const done = await summarize([world.queues.get('orders'), world.queues.get('stock-counts')], {
      streams: programKinds,
      redis: world.redis,
      since,
    });
    expect(done.orders).toMatchObject({ completed: 3, skipped: 1, failed: [] });
    expect(done['stock-counts']).toMatchObject({ completed: 2, skipped: 1, failed: [] });
  });
});
