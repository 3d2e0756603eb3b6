import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordHashOf } from '../../jobs/orders/order-plan.js';
import { ReleasedProgressStore } from '../kit/released-order-progress.js';
import type { StreamName } from '../../src/records/stream-name.js';
import { dryRun, type DryRunPlan } from '../../src/app/dry-run.js';
import { readOnlyRedis } from '../../src/app/read-only-redis.js';
import { readOnlyApi } from '../../src/client/layers/read-only-api.js';
import { createLogger } from '../../src/log/logger.js';
import { countRecord, syncOneByOne } from '../helpers/count-record.js';
import { loggedWrites, plannedWrites } from '../helpers/planned-calls.js';
import { describeEachProfile, testWorld, type TestWorld } from '../helpers/test-world.js';
import { orderKeys } from '../../jobs/orders/order-keys.js';
import { STREAMS, programKinds } from '../../jobs/kinds.js';

const kinds = [...programKinds];

describeEachProfile('dry run', (profile) => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await testWorld('dry-run', { streams: [...STREAMS], sandbox: { profile } });
  });
  afterAll(async () => {
    await world?.close();
  });

  /** A dry run of records as an NDJSON file of one stream. */
  const plan = (stream: StreamName, records: unknown[]): Promise<DryRunPlan> =>
    dryRun(
      { ...world.deps, logger: createLogger({ level: 'silent' }), maxRecordBytes: 1 << 20 },
      { kinds, sources: [{ stream, from: 'file', file: Readable.from([records.map((r) => JSON.stringify(r)).join('\n')]) }] },
    );
  const lines = (p: DryRunPlan, key: string) =>
    (p.records.find((r) => r.key === key)?.details?.lines ?? []) as Array<Record<string, unknown>>;

  describe('when two counts of one location share a product', () => {
    it('previews the second against the stock the first leaves, as the run then posts them (older first)', async () => {
      const older = countRecord('DRY-A02-20', 'A-02', '2026-11-20', [
        ['SKU-0001', 50],
        ['SKU-0011', 7],
      ]);
      const newer = countRecord('DRY-A02-21', 'A-02', '2026-11-21', [['SKU-0001', 44]]);
      const p = await plan('stock-counts', [older, newer]);
      const onHand = lines(p, 'DRY-A02-20')[0]!.onHand as number;
      expect(lines(p, 'DRY-A02-20')[0]).toMatchObject({ productId: 'SKU-0001', counted: 50, quantityOnHandVar: 50 - onHand });
      expect(lines(p, 'DRY-A02-21')).toEqual([
        expect.objectContaining({ productId: 'SKU-0001', onHand: 50, counted: 44, quantityOnHandVar: -6 }),
      ]);
      expect(world.sandbox.admin.requests().filter((r) => r.path.endsWith('/inventoryitem'))).toHaveLength(1);
      const from = world.sandbox.admin.requests().length;
      await syncOneByOne(world, older, newer);
      expect(loggedWrites(world.sandbox, from)).toEqual(plannedWrites(p, world.sandbox));
    });

    it('leaves the shared product of an older count to a newer one that comes first, as the run does', async () => {
      const newer = countRecord('DRY-A04-21', 'A-04', '2026-11-21', [['SKU-0003', 30]]);
      const older = countRecord('DRY-A04-20', 'A-04', '2026-11-20', [
        ['SKU-0003', 99],
        ['SKU-0013', 9],
      ]);
      const p = await plan('stock-counts', [newer, older]);
      const left = p.records.find((r) => r.key === 'DRY-A04-20')!;
      expect(left.details?.leftToNewer).toEqual([{ productId: 'SKU-0003', countId: 'DRY-A04-21', countDate: '2026-11-21' }]);
      expect(left.calls).toHaveLength(1);
      expect(JSON.stringify(left.calls[0]!.body)).not.toContain('SKU-0003');
      const from = world.sandbox.admin.requests().length;
      await syncOneByOne(world, newer, older);
      expect(loggedWrites(world.sandbox, from)).toEqual(plannedWrites(p, world.sandbox));
      // Applied now: a dry run of the same counts says so, with no call.
      const again = await plan('stock-counts', [newer, older]);
      expect(again.records.map((r) => [r.outcome, r.summary.includes('already applied')])).toEqual([
        ['unchanged', true],
        ['unchanged', true],
      ]);
    });
  });

  describe('when an order is partly synced', () => {
    it('plans the steps left, on the shipment the service made, and the run sends exactly those', async () => {
      const record = {
        orderId: 'DRY-PART-1',
        origin: 'Main Warehouse',
        lines: [{ productId: 'MUG-RED', quantity: 1, unitPrice: 12.5, location: 'Main Warehouse / A-01' }],
      };
      const order = await world.client.createOrder({
        orderId: record.orderId,
        orderTypeId: 'SALES_ORDER',
        originFacilityUrl: world.facility('Main Warehouse'),
        orderItemList: [{ productId: 'MUG-RED', productUrl: world.product('MUG-RED'), unitPrice: 12.5, quantity: 1 }],
      });
      const shipment = await world.client.createShipment({
        shipmentId: 'SHP-DRY-PART-1',
        shipmentIdUser: 'DRY-PART-1-1',
        shipmentTypeId: 'SALES_SHIPMENT',
        statusId: 'SHIPMENT_INPUT',
        primaryOrderUrl: order.orderUrl,
        shipmentItemList: [
          { facilityUrl: world.facility('A-01'), productId: 'MUG-RED', productUrl: world.product('MUG-RED'), quantity: 1 },
        ],
      });
      const store = new ReleasedProgressStore(world.redis, orderKeys(world.keys).progress(record.orderId), 3600);
      await store.save({
        step: 'shipment-created',
        recordHash: recordHashOf(record),
        orderUrl: order.orderUrl,
        actionUrlComplete: `${order.orderUrl}/complete`,
        shipmentUrl: shipment.shipmentUrl,
      });

      const p = await plan('orders', [record]);
      expect(p.records[0]!.calls.map((c) => [c.path, c.what])).toEqual([
        [shipment.shipmentUrl, 'ship the shipment'],
        [`${order.orderUrl}/complete`, 'complete the order'],
      ]);
      expect(p.records[0]!.summary).toContain('resumes after "shipment-created"');
      const from = world.sandbox.admin.requests().length;
      await world.add('orders', [record]);
      await world.idle();
      expect(loggedWrites(world.sandbox, from)).toEqual(plannedWrites(p, world.sandbox));

      // Synced now, its job unknown to this dry run: the order's progress says so.
      const again = await plan('orders', [record]);
      expect(again.records[0]).toMatchObject({
        outcome: 'unchanged',
        summary: 'order DRY-PART-1: already synced (completed); no calls',
        calls: [],
      });
    });
  });
});

describe('read-only parts of the dry run', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await testWorld('dry-guards', { streams: ['orders'], workers: false });
  });
  afterAll(async () => {
    await world?.close();
  });

  it('a read-only client reads and refuses every write before sending it', async () => {
    const api = readOnlyApi(world.client);
    expect((await api.listFacilities()).length).toBeGreaterThan(0);
    const writes = [
      () => api.createOrder({ orderId: 'X', orderTypeId: 'SALES_ORDER', originFacilityUrl: '/demo/api/facility/10000', orderItemList: [] }),
      () => api.completeOrder('/demo/api/order/X/complete'),
      () => api.modifyShipment('/demo/api/shipment/X', {}),
      () => api.updateProduct('/demo/api/product/X', { productId: 'X', productUrl: '/demo/api/product/X', productAssocList: [] }),
      () =>
        api.createVariance({
          physicalInventoryDate: '2026-11-20T19:00:00.000',
          statusId: 'PHSCL_INV_COMMITTED',
          physicalInventoryTypeId: 'FACILITY',
          facilityUrl: '/demo/api/facility/10001',
          inventoryItemVarianceList: [],
        }),
    ];
    for (const write of writes) await expect(write()).rejects.toMatchObject({ code: 'WRITE_REFUSED' });
    expect(world.sandbox.admin.requests().filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('a read-only Redis answers reads and refuses writes, transactions and scripts', async () => {
    const key = `${world.prefix}:guard`;
    await world.redis.set(key, 'v');
    const redis = readOnlyRedis(world.redis);
    expect(await redis.get(key)).toBe('v');
    expect(() => redis.set(key, 'w')).toThrow(expect.objectContaining({ code: 'WRITE_REFUSED' }));
    expect(() => redis.hset(key, 'f', 'v')).toThrow(/may only read/);
    expect(() => redis.multi()).toThrow(/multi/);
    expect(() => redis.eval('return 1', 0)).toThrow(/eval/);
    expect(await world.redis.get(key)).toBe('v');
  });
});
