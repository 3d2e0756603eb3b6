import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcile } from '../../src/ops/reconcile.js';
import type { Drift, ReconcileReport } from '../../src/ops/reconcile-types.js';
import type { SandboxData } from '../../src/sandbox/sandbox-data-schema.js';
import type { SandboxState } from '../../src/sandbox/sandbox-entities.js';
import { countRecord } from '../helpers/count-record.js';
import { orderRecord } from '../helpers/order-records.js';
import { testWorld, type TestWorld } from '../helpers/test-world.js';
import { STREAMS, programKinds } from '../../jobs/kinds.js';

const line = (productId: string, quantity: number, location = 'Main Warehouse / A-01') => ({ productId, quantity, unitPrice: 4, location });
const orderIds = ['R-1', 'R-2', 'R-3', 'R-4', 'R-5', 'R-6', 'R-7', 'R-8'];
const count = countRecord('RC-1', 'Main Warehouse / A-02', '2026-11-20', [
  ['SKU-0002', 50],
  ['SKU-0005', 20],
]);
const boms = [
  { productId: 'SKU-0100', components: [{ productId: 'SKU-0101', quantity: 2 }] },
  { productId: 'SKU-0110', components: [{ productId: 'SKU-0111', quantity: 1 }] },
];

function run(world: TestWorld, deep = false): Promise<ReconcileReport> {
  return reconcile(
    {
      client: world.client,
      catalog: world.deps.catalog,
      redis: world.redis,
      prefix: world.prefix,
      queues: world.queues,
      kinds: programKinds,
    },
    undefined,
    { deep },
  );
}

/** Replaces the sandbox's data with an edited copy of its state (the admin API's reset). */
function edit(world: TestWorld, change: (s: SandboxState) => void): void {
  const state = world.sandbox.admin.state();
  change(state);
  world.sandbox.admin.reset(JSON.parse(JSON.stringify(state)) as SandboxData);
}

const pick = (r: ReconcileReport, key: string) =>
  r.drifts.filter((d) => d.key === key).map((d: Drift) => ({ kind: d.kind, field: d.field, service: d.service, synced: d.synced }));

describe('reconcile', () => {
  let world: TestWorld;

  beforeAll(async () => {
    world = await testWorld('reconcile', { streams: [...STREAMS] });
    await world.add(
      'orders',
      orderIds.map((id) => orderRecord(id, [line('MUG-BLUE', 1), line('SKU-0003', 2, 'A-02')])),
    );
    await world.add('stock-counts', [count]);
    await world.add('boms', boms);
    await world.idle();
    // A sale from the counted location after the count: normal, not drift.
    await world.add('orders', [orderRecord('R-S', [line('SKU-0002', 4, 'Main Warehouse / A-02')])]);
    await world.idle();
  }, 60_000);
  afterAll(() => world?.close());

  describe('after a clean sync', () => {
    it('finds no drift, having compared every synced record, within one read of each collection', async () => {
      const r = await run(world);
      expect(r.drifts).toEqual([]);
      expect(r.ok).toBe(true);
      expect(r.checked).toEqual({ orders: 9, shipments: 9, stockPairs: 2, boms: 2 });
      // order, shipment, inventoryitem (the catalog was read by the jobs already); one GET per BOM product.
      expect(r.calls).toEqual({ collection: 3, get: 2 });
      expect(r.unchecked).toEqual([]);
    });
  });

  describe("when the service was changed behind the program's back", () => {
    let r: ReconcileReport;
    let state: SandboxState;

    beforeAll(async () => {
      const northDepot = world.facility('North Depot');
      edit(world, (s) => {
        const order = (id: string) => s.orders.find((o) => o.orderId === id)!;
        const shipmentOf = (id: string) => s.shipments.find((x) => x.primaryOrderUrl === order(id).orderUrl)!;
        // R-1 deleted with its shipment; R-2 no longer completed; R-3 from another magazine; R-4 another quantity.
        const gone = order('R-1').orderUrl;
        s.shipments = s.shipments.filter((x) => x.primaryOrderUrl !== gone);
        s.orders = s.orders.filter((o) => o.orderUrl !== gone);
        order('R-2').statusId = 'ORDER_CREATED';
        order('R-3').originFacilityUrl = northDepot;
        order('R-4').orderItemList[0]!.quantity = 5;
        order('R-4').orderItemListTotal = 5 * 4 + 2 * 4;
        // R-5's shipment back to packed; R-6 with a second shipment; R-7 without one.
        shipmentOf('R-5').statusId = 'SHIPMENT_PACKED';
        const twin = { ...shipmentOf('R-6'), shipmentId: '900001', shipmentUrl: '/demo/api/shipment/900001', shipmentIdUser: 'R-6-2' };
        s.shipments.push(twin);
        // other quantities, the same total (2 x 4 + 1 x 4 = 1 x 4 + 2 x 4).
        order('R-8').orderItemList[0]!.quantity = 2;
        order('R-8').orderItemList[1]!.quantity = 1;
        const r7 = shipmentOf('R-7').shipmentUrl;
        s.shipments = s.shipments.filter((x) => x.shipmentUrl !== r7);
      });
      // As a web-app user would, through the public API: 3 more of SKU-0005 at the counted location, the BOM of
      // SKU-0100 edited, and a second bill added to SKU-0110.
      const a02 = world.facility('A-02');
      await world.client.createVariance({
        physicalInventoryDate: '2026-11-21T19:00:00.000',
        statusId: 'PHSCL_INV_COMMITTED',
        physicalInventoryTypeId: 'FACILITY',
        facilityUrl: a02,
        inventoryItemVarianceList: [{ facilityUrl: a02, productUrl: world.product('SKU-0005'), quantityOnHandVar: 3 }],
      });
      const p100 = await world.client.getProduct(world.product('SKU-0100'));
      await world.client.updateProduct(world.product('SKU-0100'), {
        productId: 'SKU-0100',
        productUrl: world.product('SKU-0100'),
        productAssocList: [
          {
            productAssocTypeId: 'MANUF_COMPONENT',
            productAssocUrl: p100.productAssocList[0]!.productAssocUrl,
            productAssocItemList: [{ productUrl: world.product('SKU-0101'), quantity: 3 }],
          },
        ],
      });
      const p110 = world.product('SKU-0110');
      await world.client.updateProduct(p110, {
        productId: 'SKU-0110',
        productUrl: p110,
        productAssocList: [
          { productAssocTypeId: 'MANUF_COMPONENT', productAssocItemList: [{ productUrl: world.product('SKU-0112'), quantity: 1 }] },
        ],
      });
      state = world.sandbox.admin.state();
      r = await run(world);
    });

    it('reports a missing order', () => {
      expect(pick(r, 'R-1')).toEqual([{ kind: 'order-missing', field: 'order', service: 'none', synced: 'order R-1 (ORDER_COMPLETED)' }]);
    });

    it('reports an order no longer completed', () => {
      expect(pick(r, 'R-2')).toEqual([
        { kind: 'order-not-completed', field: 'statusId', service: 'ORDER_CREATED', synced: 'ORDER_COMPLETED' },
      ]);
    });

    it('reports another origin', () => {
      expect(pick(r, 'R-3')).toEqual([
        {
          kind: 'order-origin',
          field: 'originFacilityUrl',
          service: world.facility('North Depot'),
          synced: world.facility('Main Warehouse'),
        },
      ]);
    });

    it('reports other lines, naming the product (the order read once because its total differs)', () => {
      expect(pick(r, 'R-4')).toEqual([
        { kind: 'order-lines', field: 'lines[MUG-BLUE] quantity x unitPrice', service: '5 x 4', synced: '1 x 4' },
      ]);
    });

    it('reports a shipment not shipped, a second shipment and a missing one', () => {
      expect(pick(r, 'R-5')).toEqual([
        { kind: 'shipment-not-shipped', field: 'shipment statusId', service: 'SHIPMENT_PACKED', synced: 'SHIPMENT_SHIPPED' },
      ]);
      expect(pick(r, 'R-6')).toEqual([
        {
          kind: 'shipment-extra',
          field: 'shipments',
          service: expect.stringMatching(/^2: .*\/demo\/api\/shipment\/900001 \(SHIPMENT_SHIPPED\)/),
          synced: '1',
        },
      ]);
      expect(pick(r, 'R-7')).toEqual([
        { kind: 'shipment-missing', field: 'shipment', service: 'none', synced: 'one shipment (SHIPMENT_SHIPPED)' },
      ]);
    });

    it('reports stock that differs from the newest count, with the difference, and not the sales since', () => {
      const stock = r.drifts.filter((d) => d.stream === 'stock-counts');
      expect(stock).toEqual([
        expect.objectContaining({
          kind: 'stock-differs',
          key: 'RC-1',
          field: 'quantityOnHand of SKU-0005 at Main Warehouse / A-02',
          service: '23',
          synced: '20',
          difference: 3,
        }),
      ]);
      expect(
        state.inventory
          .filter((i) => i.productId === 'SKU-0002' && i.facilityUrl === world.facility('A-02'))
          .reduce((n, i) => n + i.quantityOnHand, 0),
      ).toBe(46);
    });

    it('reports a changed bill of materials and an extra entry', () => {
      expect(pick(r, 'SKU-0100')).toEqual([
        { kind: 'bom-differs', field: 'first MANUF_COMPONENT entry', service: 'SKU-0101 x 3', synced: 'SKU-0101 x 2' },
      ]);
      expect(pick(r, 'SKU-0110')).toEqual([
        {
          kind: 'bom-extra-entries',
          field: 'productAssocList (MANUF_COMPONENT entries)',
          service: expect.stringMatching(/^2: extra \/demo\/api\/productassoc\//),
          synced: '1',
        },
      ]);
    });

    it('finds lines changed with the same total only when asked to read every order (--deep)', async () => {
      expect(pick(r, 'R-8')).toEqual([]);
      const deep = await run(world, true);
      expect(pick(deep, 'R-8')).toEqual([
        { kind: 'order-lines', field: 'lines[MUG-BLUE] quantity x unitPrice', service: '2 x 4', synced: '1 x 4' },
        { kind: 'order-lines', field: 'lines[SKU-0003] quantity x unitPrice', service: '1 x 4', synced: '2 x 4' },
      ]);
      expect(deep.calls.get - r.calls.get).toBe(7);
    });

    it('reports nothing else', () => {
      expect(r.ok).toBe(false);
      expect(r.drifts.map((d) => d.key).sort()).toEqual(['R-1', 'R-2', 'R-3', 'R-4', 'R-5', 'R-6', 'R-7', 'RC-1', 'SKU-0100', 'SKU-0110']);
    });
  });
});

describe('reconcile after a run with lost answers', () => {
  let world: TestWorld;
  afterAll(() => world?.close());

  it('finds no drift: every write whose answer was lost was settled, none applied twice', async () => {
    world = await testWorld('reconcile-lost', { streams: [...STREAMS] });
    world.sandbox.admin.setFaults([
      { kind: 'apply-then-drop', method: 'POST', path: '/api/order$', times: 2 },
      { kind: 'apply-then-drop', method: 'POST', path: '/api/shipment', times: 2 },
      { kind: 'apply-then-drop', method: 'POST', path: '/api/inventoryvariance$', times: 1 },
      { kind: 'apply-then-drop', method: 'POST', path: '/api/product/', times: 1 },
    ]);
    await world.add(
      'orders',
      ['L-1', 'L-2', 'L-3'].map((id) => orderRecord(id, [line('MUG-BLUE', 1)])),
    );
    await world.add('stock-counts', [countRecord('LC-1', 'Main Warehouse / A-03', '2026-11-20', [['SKU-0004', 9]])]);
    await world.add('boms', [boms[0]]);
    await world.idle(40_000);
    expect(world.sandbox.admin.faults().every((f) => f.fired > 0)).toBe(true);
    world.sandbox.admin.setFaults([]);
    const r = await run(world);
    expect(r.drifts).toEqual([]);
    expect(r.checked).toEqual({ orders: 3, shipments: 3, stockPairs: 1, boms: 1 });
  }, 60_000);
});
