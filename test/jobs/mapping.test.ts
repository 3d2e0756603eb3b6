import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMapping, type Mapping } from '../../config/mapping-file.js';
import { startDashboard } from '../../src/dashboard/dashboard-server.js';
import type { FindResult } from '../../src/ops/find.js';
import { reconcile } from '../../src/ops/reconcile.js';
import { countRecord, stockAt } from '../helpers/count-record.js';
import { orderRecord, orderState } from '../helpers/order-records.js';
import { describeEachProfile, jobOf, testWorld, type TestWorld } from '../helpers/test-world.js';
import { STREAMS, programKinds } from '../../jobs/kinds.js';

/** A mapping as MAPPING_FILE loads it (the same parser and checks as at start). */
function mappingOf(csv: string): Mapping {
  const file = join(mkdtempSync(join(tmpdir(), 'isync-map-')), 'mapping.csv');
  writeFileSync(file, csv);
  const r = loadMapping(file);
  if (!('mapping' in r)) throw new Error(r.problems.join('\n'));
  return r.mapping;
}

const MAPPING = `kind,upstream,service
product,SKU-9,MUG-BLUE
product,UP-0003,SKU-0003
product,UP-KIT,SKU-0100
product,UP-COMP,SKU-0101
product,SKU-GONE,NO-SUCH-PRODUCT
facility,WH1,Main Warehouse
facility,BIN-7,Main Warehouse / A-05
`;

const line = (productId: string, quantity: number, location: string) => ({ productId, quantity, unitPrice: 3, location });
const mapped = orderRecord('MAP-1', [line('SKU-9', 2, 'WH1 / A-01'), line('UP-0003', 1, 'BIN-7')], { origin: 'WH1' });
const mappedUnknown = orderRecord('MAP-2', [line('SKU-GONE', 1, 'WH1 / A-01')], { origin: 'WH1' });
const unmappedUnknown = orderRecord('MAP-3', [line('SKU-404', 1, 'Main Warehouse / A-01')]);
const count = countRecord('MAPC-1', 'WH1 / A-06', '2026-11-20', [
  ['UP-0003', 7],
  ['SKU-0010', 4],
]);
const bom = {
  productId: 'UP-KIT',
  components: [
    { productId: 'UP-COMP', quantity: 2 },
    { productId: 'SKU-0102', quantity: 1 },
  ],
};
const bomUnknown = { productId: 'SKU-0110', components: [{ productId: 'UP-NOPE', quantity: 1 }] };

describeEachProfile('mapping', (profile) => {
  let world: TestWorld;
  const mapping = mappingOf(MAPPING);
  beforeAll(async () => {
    world = await testWorld('mapping', { streams: [...STREAMS], sandbox: { profile }, mapping });
    await world.add('orders', [mapped, mappedUnknown, unmappedUnknown]);
    await world.add('stock-counts', [count]);
    await world.add('boms', [bom, bomUnknown]);
    await world.idle();
  });
  afterAll(async () => {
    await world?.close();
  });

  describe('when an order names upstream SKUs and an aliased warehouse', () => {
    it("creates the order with the service's products and origin", () => {
      const { orders } = orderState(world.sandbox.admin.state(), 'MAP-1');
      expect(orders).toHaveLength(1);
      expect(orders[0]!.statusId).toBe('ORDER_COMPLETED');
      expect(orders[0]!.originFacilityUrl).toBe(world.facility('Main Warehouse'));
      expect(orders[0]!.orderItemList.map((i) => [i.productId, i.productUrl, i.quantity])).toEqual([
        ['MUG-BLUE', world.product('MUG-BLUE'), 2],
        ['SKU-0003', world.product('SKU-0003'), 1],
      ]);
    });

    it("ships it from the service's locations, the magazine's alias applied to a path", () => {
      const { shipments } = orderState(world.sandbox.admin.state(), 'MAP-1');
      expect(shipments.map((s) => s.statusId)).toEqual(['SHIPMENT_SHIPPED']);
      expect(shipments[0]!.shipmentItemList.map((i) => [i.productId, i.productUrl, i.facilityUrl])).toEqual([
        ['MUG-BLUE', world.product('MUG-BLUE'), world.facility('A-01')],
        ['SKU-0003', world.product('SKU-0003'), world.facility('A-05')],
      ]);
    });

    it('sends no upstream name to the service', () => {
      const sent = JSON.stringify(world.sandbox.admin.requests().filter((r) => r.method === 'POST'));
      for (const upstream of ['SKU-9', 'UP-0003', 'WH1', 'BIN-7', 'UP-KIT', 'UP-COMP']) expect(sent).not.toContain(`"${upstream}"`);
    });
  });

  describe('when a mapped SKU is not in the service', () => {
    it('fails as a bad record naming the upstream and the mapped value', async () => {
      const job = await jobOf(world, 'orders', 'MAP-2');
      expect(await job.getState()).toBe('failed');
      expect(job.failedReason).toBe(
        '[BAD_RECORD] record MAP-2: lines.0.productId: "SKU-GONE" (mapped to "NO-SUCH-PRODUCT") is an unknown product (not in the service\'s product collection)',
      );
    });
  });

  describe('when an unmapped SKU is not in the service', () => {
    it('fails as a bad record naming it, as without a mapping', async () => {
      const job = await jobOf(world, 'orders', 'MAP-3');
      expect(job.failedReason).toBe(
        '[BAD_RECORD] record MAP-3: lines.0.productId: "SKU-404" is an unknown product (not in the service\'s product collection)',
      );
      expect(orderState(world.sandbox.admin.state(), 'MAP-3').orders).toEqual([]);
    });
  });

  describe('when a count names an upstream SKU at an aliased magazine', () => {
    it("sets the service product's stock at the service's location, unmapped SKUs as before", async () => {
      expect((await jobOf(world, 'stock-counts', 'MAPC-1')).returnvalue.outcome).toBe('synced');
      expect(stockAt(world, 'A-06', 'SKU-0003')).toBe(7);
      expect(stockAt(world, 'A-06', 'SKU-0010')).toBe(4);
      const lines = world.sandbox.admin
        .state()
        .variances.flatMap((v) => v.inventoryItemVarianceList.map((i) => [v.facilityUrl, i.productUrl]));
      expect(lines).toContainEqual([world.facility('A-06'), world.product('SKU-0003')]);
    });
  });

  describe('when a BOM names upstream SKUs', () => {
    it("lists the service's products as components of the service's product", async () => {
      expect((await jobOf(world, 'boms', 'UP-KIT')).returnvalue.outcome).toBe('synced');
      const product = world.sandbox.admin.state().products.find((p) => p.productId === 'SKU-0100')!;
      const items = product.productAssocList[0]!.productAssocItemList.map((i) => [i.productUrl, i.quantity]);
      expect(items.sort()).toEqual(
        [
          [world.product('SKU-0101'), 2],
          [world.product('SKU-0102'), 1],
        ].sort(),
      );
    });

    it('fails a BOM whose unmapped component is unknown, naming it', async () => {
      const job = await jobOf(world, 'boms', 'SKU-0110');
      expect(job.failedReason).toBe(
        "[BAD_RECORD] record SKU-0110: components.0.productId: unknown component: no product UP-NOPE in the service's product collection",
      );
    });
  });

  describe("on the dashboard's find page", () => {
    it("shows the service's names beside the record's", async () => {
      const dashboard = await startDashboard({
        kinds: programKinds,
        host: '127.0.0.1',
        port: 0,
        auth: null,
        redis: world.redis,
        prefix: world.prefix,
        mapping,
      });
      try {
        const found = (await (await fetch(`${dashboard.url}/api/find?key=MAPC-1`)).json()) as FindResult;
        expect(found.mapped).toEqual([
          { kind: 'facility', upstream: 'WH1 / A-06', service: 'Main Warehouse / A-06' },
          { kind: 'product', upstream: 'UP-0003', service: 'SKU-0003' },
        ]);
        const page = await (await fetch(`${dashboard.url}/find?key=UP-KIT`)).text();
        expect(page).toContain('<tr><td>product</td><td><code>UP-COMP</code></td><td>→ <code>SKU-0101</code></td></tr>');
        expect(page).toContain('<tr><td>product</td><td><code>UP-KIT</code></td><td>→ <code>SKU-0100</code></td></tr>');
      } finally {
        await dashboard.close();
      }
    });
  });

  describe('when reconciled', () => {
    it('compares the mapped values and finds no drift', async () => {
      const report = await reconcile(
        {
          client: world.client,
          catalog: world.deps.catalog,
          redis: world.redis,
          prefix: world.prefix,
          queues: world.queues,
          kinds: programKinds,
        },
        undefined,
        { deep: true },
      );
      expect(report.drifts).toEqual([]);
      expect(report.unchecked).toEqual([]);
      expect(report.checked).toMatchObject({ orders: 1, shipments: 1, stockPairs: 2, boms: 1 });
    });
  });
});
