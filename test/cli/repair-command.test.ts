import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxData } from '../../src/sandbox/sandbox-data-schema.js';
import { countRecord } from '../helpers/count-record.js';
import { orderRecord } from '../helpers/order-records.js';
import { runCli } from './run-cli.js';
import { startStack, type Stack } from './stack.js';

const bom = (productId: string, components: Array<[string, number]>) => ({
  productId,
  components: components.map(([id, quantity]) => ({ productId: id, quantity })),
});
const A02 = '/demo/api/facility/10002';
const SKU5 = '/demo/api/product/SKU-0005';

describe('reconcile --repair', () => {
  let stack: Stack;

  /** Changes the service's state as its admin surface allows (what a person does in the web application). */
  const plant = (change: (s: SandboxData & { orders: any[]; shipments: any[]; products: any[] }) => void) => {
    const state = JSON.parse(JSON.stringify(stack.sandbox.admin.state()));
    change(state);
    stack.sandbox.admin.reset(state as SandboxData);
  };
  /** A request through the service's API, as the web application sends it. */
  const api = async (path: string, body: unknown) => {
    const { sandbox } = stack;
    const res = await fetch(`${sandbox.url}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${sandbox.key}:${sandbox.secret}`).toString('base64')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify(body),
    });
    expect(res.status, await res.clone().text()).toBeLessThan(300);
    return (await res.json()) as Record<string, any>;
  };
  const posts = () => stack.sandbox.admin.requests().filter((r) => r.method === 'POST');
  const order = (id: string) => stack.sandbox.admin.state().orders.find((o) => o.orderId === id)!;
  const shipmentsOf = (id: string) => stack.sandbox.admin.state().shipments.filter((s) => s.primaryOrderUrl === order(id).orderUrl);
  const entries = (productId: string) => stack.sandbox.admin.state().products.find((p) => p.productId === productId)!.productAssocList;
  const onHand = () => stack.sandbox.admin.stockOnHand(A02, SKU5);

  /** The dry run plans `kinds` and writes nothing; the repair fixes them; reconcile then exits 0. */
  async function repairs(kinds: string[], args: string[] = []) {
    const before = posts().length;
    const dry = await runCli(['reconcile', '--repair', '--dry-run', '--json', ...args], stack.env, { timeoutMs: 90_000 });
    expect(posts().length).toBe(before);
    expect(dry.code, dry.stderr).toBe(0);
    const plan = JSON.parse(dry.stdout);
    expect(plan.items.map((i: any) => `${i.kind} ${i.action}`).sort()).toEqual(kinds.map((k) => `${k} repair`).sort());
    expect(plan.plans.flatMap((p: any) => p.calls).length).toBeGreaterThan(0);

    const run = await runCli(['reconcile', '--repair', ...args], stack.env, { timeoutMs: 90_000 });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('Reconcile after the repairs: no drift.');
    const after = await runCli(['reconcile'], stack.env);
    expect(after.code, after.stdout).toBe(0);
    return { plan, run };
  }

  beforeAll(async () => {
    stack = await startStack(
      {
        orders: ['RP-1', 'RP-2', 'RP-3', 'RP-4', 'RP-5'].map((id) => orderRecord(id)),
        boms: [
          bom('SKU-0010', [
            ['SKU-0011', 2],
            ['SKU-0013', 1],
          ]),
        ],
        'stock-counts': [countRecord('RC-1', 'A-02', '2026-11-20', [['SKU-0005', 7]])],
      },
      'repair-cli',
    );
    // Repairs are under test, not the collection budget's pacing (test/cli/reconcile-command.test.ts): each reconcile
    // reads every collection, and the stack's 3000 an hour would space those reads about a second apart.
    stack.env.INVENTORY_COLLECTION_PER_HOUR = '360000';
    const sync = await runCli(['sync', '--once'], stack.env, { timeoutMs: 120_000 });
    expect(sync.code, sync.stdout + sync.stderr).toBe(0);
    const r = await runCli(['reconcile'], stack.env);
    expect(r.code, r.stdout).toBe(0);
  }, 180_000);
  afterAll(() => stack?.close());

  it('completes an order made editable again in the web application', async () => {
    // actionUrlEdit (the observed profile's), as the web application's "edit" of a completed order.
    await api(`${order('RP-1').orderUrl}/edit`, {});
    expect(order('RP-1').statusId).toBe('ORDER_CREATED');
    const { run } = await repairs(['order-not-completed']);
    expect(order('RP-1').statusId).toBe('ORDER_COMPLETED');
    expect(run.stdout).toMatch(/orders\s+RP-1\s+order-not-completed\s+REPAIR\s+complete the order\s+repaired/);
  }, 120_000);

  it('ships a shipment left in input, without completing the completed order again', async () => {
    plant((s) => {
      const url = s.orders.find((o) => o.orderId === 'RP-2')!.orderUrl;
      s.shipments.find((x) => x.primaryOrderUrl === url)!.statusId = 'SHIPMENT_INPUT';
    });
    const before = posts().length;
    await repairs(['shipment-not-shipped']);
    expect(shipmentsOf('RP-2').map((s) => s.statusId)).toEqual(['SHIPMENT_SHIPPED']);
    expect(
      posts()
        .slice(before)
        .map((p) => p.path),
    ).toEqual([shipmentsOf('RP-2')[0]!.shipmentUrl]);
  }, 120_000);

  it('creates and ships a missing shipment of an open order, then completes it', async () => {
    plant((s) => {
      const o = s.orders.find((x) => x.orderId === 'RP-3')!;
      s.shipments = s.shipments.filter((x) => x.primaryOrderUrl !== o.orderUrl);
      o.shipmentUrlList = [];
      o.statusId = 'ORDER_CREATED';
    });
    await repairs(['order-not-completed', 'shipment-missing']);
    expect(order('RP-3').statusId).toBe('ORDER_COMPLETED');
    expect(shipmentsOf('RP-3').map((s) => s.statusId)).toEqual(['SHIPMENT_SHIPPED']);
  }, 120_000);

  it('syncs a deleted order again, whole', async () => {
    plant((s) => {
      const o = s.orders.find((x) => x.orderId === 'RP-4')!;
      s.shipments = s.shipments.filter((x) => x.primaryOrderUrl !== o.orderUrl);
      s.orders = s.orders.filter((x) => x.orderId !== 'RP-4');
    });
    // Reconcile names the order; its shipment goes with it.
    await repairs(['order-missing']);
    expect(order('RP-4').statusId).toBe('ORDER_COMPLETED');
    expect(shipmentsOf('RP-4')).toHaveLength(1);
  }, 120_000);

  it('applies an edited bill of materials again, replacing its entry (no extra entry)', async () => {
    const first = entries('SKU-0010')[0]!;
    await api(stack.sandbox.admin.state().products.find((p) => p.productId === 'SKU-0010')!.productUrl!, {
      productId: 'SKU-0010',
      productUrl: '/demo/api/product/SKU-0010',
      productAssocList: [
        {
          productAssocTypeId: 'MANUF_COMPONENT',
          productAssocUrl: first.productAssocUrl,
          productAssocItemList: [{ productUrl: SKU5, quantity: 9 }],
        },
      ],
    });
    await repairs(['bom-differs']);
    expect(entries('SKU-0010')).toHaveLength(1);
    expect(entries('SKU-0010')[0]!.productAssocItemList).toHaveLength(2);
  }, 120_000);

  it('creates the first entry again of a bill of materials deleted in the web application', async () => {
    plant((s) => {
      s.products.find((x) => x.productId === 'SKU-0010')!.productAssocList = [];
    });
    await repairs(['bom-missing']);
    expect(entries('SKU-0010')).toHaveLength(1);
    expect(entries('SKU-0010')[0]!.productAssocItemList).toHaveLength(2);
  }, 120_000);

  it('lists an extra BOM entry for a person and leaves it alone', async () => {
    const product = stack.sandbox.admin.state().products.find((p) => p.productId === 'SKU-0010')!;
    // Without productAssocUrl the service adds an entry (docs/service.md "Entities").
    await api(product.productUrl!, {
      productId: 'SKU-0010',
      productUrl: product.productUrl,
      productAssocList: [{ productAssocTypeId: 'MANUF_COMPONENT', productAssocItemList: [{ productUrl: SKU5, quantity: 1 }] }],
    });
    const before = posts().length;
    const r = await runCli(['reconcile', '--repair', '--json'], stack.env, { timeoutMs: 90_000 });
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.items).toMatchObject([{ key: 'SKU-0010', kind: 'bom-extra-entries', action: 'by-hand' }]);
    expect(report.items[0].what).toContain('web application');
    expect(report.jobs).toEqual([]);
    expect(posts().length).toBe(before);
    expect(entries('SKU-0010')).toHaveLength(2);
    plant((s) => {
      const p = s.products.find((x) => x.productId === 'SKU-0010')!;
      p.productAssocList = (p.productAssocList ?? []).slice(0, 1);
    });
  }, 120_000);

  it('leaves stock drift alone without --include-stock, and sets it back to the count with it', async () => {
    expect(onHand()).toBe(7);
    // Stock taken off in the web application: a variance of -3.
    await api('/demo/api/inventoryvariance', {
      physicalInventoryDate: '2026-11-21T19:00:00.000',
      statusId: 'PHSCL_INV_COMMITTED',
      physicalInventoryTypeId: 'FACILITY',
      facilityUrl: A02,
      inventoryItemVarianceList: [{ facilityUrl: A02, productUrl: SKU5, quantityOnHandVar: -3 }],
    });
    expect(onHand()).toBe(4);
    const before = posts().length;
    const dry = await runCli(['reconcile', '--repair', '--dry-run', '--json'], stack.env, { timeoutMs: 90_000 });
    const plan = JSON.parse(dry.stdout);
    expect(plan.items).toMatchObject([{ key: 'RC-1', kind: 'stock-differs', action: 'skipped' }]);
    expect(plan.plans[0].calls[0].body.inventoryItemVarianceList[0]).toMatchObject({ productUrl: SKU5, quantityOnHandVar: 3 });
    const left = await runCli(['reconcile', '--repair'], stack.env, { timeoutMs: 90_000 });
    expect(left.code).toBe(1);
    expect(left.stdout).toContain('--include-stock');
    expect(posts().length).toBe(before);
    expect(onHand()).toBe(4);

    await repairs(['stock-differs'], ['--include-stock']);
    expect(onHand()).toBe(7);
  }, 180_000);

  it('refuses --dry-run without --repair (exit 2)', async () => {
    const r = await runCli(['reconcile', '--dry-run'], stack.env);
    expect(r.code).toBe(2);
  });
});
