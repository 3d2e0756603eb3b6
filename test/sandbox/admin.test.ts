import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sandboxAdminClient } from '../../src/sandbox/admin-client.js';
import { sandboxBanner, startSandbox } from '../../src/sandbox/sandbox.js';
import { Api, basic, demo, orderBody, orderWithShipment, useSandbox } from './helpers.js';

/** The admin API outside /api/ (contract 2): HTTP and in-process, state, counters, reset, data sources. */
const t = useSandbox();
const dir = mkdtempSync(join(tmpdir(), 'sandbox-admin-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('admin API', () => {
  it('needs the Basic credentials, except health (which names the account and the profile)', async () => {
    expect((await t.api.get('/_admin/state', { auth: null })).status).toBe(401);
    expect((await t.api.get('/_admin/health', { auth: null })).body).toEqual({ ok: true, account: 'demo', profile: t.sb.profile });
  });

  it('reads the whole state and the counters over HTTP, without counting itself', async () => {
    const { shipment } = await orderWithShipment(t.api, 'AD-1');
    const state = (await t.api.get('/_admin/state')).body;
    expect(state.account).toBe('demo');
    expect(state.orders.map((o: { orderId: string }) => o.orderId)).toEqual(['AD-1']);
    expect(state.orders[0].statusIdHistoryList[0].statusId).toBe('ORDER_CREATED');
    expect(state.shipments[0].shipmentUrl).toBe(shipment.shipmentUrl);
    expect(state.products.find((p: { productId: string }) => p.productId === 'GIFT-SET').productAssocList).toHaveLength(1);
    expect(state.inventory.length).toBeGreaterThan(200);
    const counters = (await t.api.get('/_admin/counters')).body;
    expect(counters).toMatchObject({
      requests: 2,
      byClass: { post: 2, get: 0 },
      byStatus: { '200': 2 },
      creates: { order: 1, shipment: 1, variance: 0 },
    });
  });

  it('sets faults, budgets and latency over HTTP', async () => {
    expect((await t.api.post('/_admin/faults', [{ kind: 'status-503', path: 'facility' }])).status).toBe(200);
    expect((await t.api.get('facility')).status).toBe(503);
    expect((await t.api.post('/_admin/faults', { rules: [] })).status).toBe(200);
    expect((await t.api.post('/_admin/budgets', { get: { limit: 1, windowMs: 60_000 } })).body).toMatchObject({ get: { limit: 1 } });
    expect((await t.api.get('facility')).status).toBe(200);
    expect((await t.api.get('facility')).status).toBe(429);
    expect((await t.api.post('/_admin/budgets', {})).status).toBe(200);
    expect((await t.api.post('/_admin/latency', { ms: 5, jitterMs: 1 })).body).toEqual({ ms: 5, jitterMs: 1 });
    expect((await t.api.get('/_admin/latency')).body).toEqual({ ms: 5, jitterMs: 1 });
    expect((await t.api.post('/_admin/faults', [{ kind: 'nope' }])).status).toBe(400);
    expect((await t.api.post('/_admin/budgets', { post: { limit: -1, windowMs: 1 } })).status).toBe(400);
  });

  it('answers the stock on hand of a (location, product)', async () => {
    const r = await t.api.get(`/_admin/stock?${new URLSearchParams({ facilityUrl: demo.a01, productUrl: demo.mugBlue })}`);
    expect(r.body.quantityOnHand).toBe(40);
  });

  it('resets to the start data, or to other data for that reset only, over HTTP and in-process', async () => {
    await t.api.ok('order', orderBody('AD-2'));
    expect((await t.api.post('/_admin/reset', {})).status).toBe(200);
    expect((await t.api.get('order/AD-2')).status).toBe(404);
    expect(t.sb.admin.counters().requests).toBe(1);
    await t.api.post('/_admin/reset', { data: 'empty' });
    expect((await t.api.rows('product')).length).toBe(0);
    t.sb.admin.reset({ account: 'other', facilities: [{ facilityId: 'W', facilityName: 'Only' }], products: [{ productId: 'P-1' }] });
    expect((await t.api.rows('facility')).map((f) => f.facilityUrl)).toEqual(['/demo/api/facility/W']);
    t.sb.admin.reset();
    expect((await t.api.rows('facility')).length).toBe(12);
  });

  it('works from another process through the remote admin client', async () => {
    const remote = sandboxAdminClient({ url: t.sb.url, key: 'demo', secret: 'demo' });
    await remote.setFaults([{ kind: 'status-503', times: 1 }]);
    expect((await t.api.get('facility')).status).toBe(503);
    expect((await remote.counters()).faults).toEqual({ 'status-503': 1 });
    expect(await remote.stockOnHand(demo.a01, demo.mugRed)).toBe(30);
    await remote.reset();
    expect((await remote.state()).orders).toEqual([]);
    await expect(sandboxAdminClient({ url: t.sb.url, key: 'demo', secret: 'x' }).state()).rejects.toThrow(/401/);
  });
});

describe('data sources', () => {
  it('starts from a JSON file in the shape of state(), rebased on the account it is given', async () => {
    await t.api.ok('order', orderBody('AD-10'));
    const file = join(dir, 'state.json');
    writeFileSync(file, JSON.stringify(t.sb.admin.state()));
    const sb = await startSandbox({ data: file, account: 'acme', key: 'a', secret: 'b' });
    try {
      const api = new Api(sb);
      const o = (await api.get('/acme/api/order/AD-10', { auth: basic('a', 'b') })).body;
      expect(o).toMatchObject({ orderUrl: '/acme/api/order/AD-10', originFacilityUrl: '/acme/api/facility/10000' });
      expect((await api.get('/acme/api/order/AD-10/history/', { auth: basic('a', 'b') })).body.statusId).toEqual(['ORDER_CREATED']);
      const v = await api.post(
        '/acme/api/inventoryvariance',
        {
          physicalInventoryDate: '2026-01-01T19:00:00',
          statusId: 'PHSCL_INV_COMMITTED',
          physicalInventoryTypeId: 'FACILITY',
          facilityUrl: '/acme/api/facility/10001',
          inventoryItemVarianceList: [],
        },
        { auth: basic('a', 'b') },
      );
      expect(v.status).toBe(200);
    } finally {
      await sb.close();
    }
  });

  it('accepts a hand-written file that leaves out derived URLs, ids and lists', async () => {
    const file = join(dir, 'small.json');
    writeFileSync(
      file,
      JSON.stringify({
        account: 'shop',
        facilities: [
          { facilityId: 'WH', facilityName: 'Store' },
          { facilityId: 'S1', facilityName: 'Shelf 1', parentFacilityUrl: '/shop/api/facility/WH' },
        ],
        products: [{ productId: 'P-1', productUrl: '/shop/api/product/900' }],
        inventory: [{ facilityUrl: '/shop/api/facility/S1', productUrl: '/shop/api/product/900', quantityOnHand: 7 }],
        orders: [{ orderId: 'OLD-1', orderUrl: '/shop/api/order/OLD-1', statusId: 'ORDER_CREATED' }],
      }),
    );
    const sb = await startSandbox({ data: file });
    try {
      const api = new Api(sb);
      expect(sb.account).toBe('shop');
      expect((await api.rows('inventoryitem'))[0]).toMatchObject({
        productId: 'P-1',
        quantityOnHand: 7,
        inventoryItemUrl: expect.stringMatching(/^\/shop\/api\/inventoryitem\//),
      });
      expect((await api.post('/shop/api/order/OLD-1/complete')).body.statusId).toBe('ORDER_COMPLETED');
    } finally {
      await sb.close();
    }
  });

  it('refuses a data file with a clear message naming the field', async () => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ account: 'x', facilities: [{ facilityName: 'No id' }] }));
    await expect(startSandbox({ data: file })).rejects.toThrow(/facilities\[0\]\.facilityId: is required/);
    writeFileSync(
      file,
      JSON.stringify({
        products: [{ productId: 'A' }],
        inventory: [{ facilityUrl: '/demo/api/facility/1', productUrl: '/demo/api/product/A', quantityOnHand: 1 }],
      }),
    );
    await expect(startSandbox({ data: file })).rejects.toThrow(/inventory\[0\]\.facilityUrl: no facility/);
    await expect(startSandbox({ data: join(dir, 'missing.json') })).rejects.toThrow(/cannot read it as JSON/);
  });

  it('starts empty', async () => {
    const sb = await startSandbox({ data: 'empty' });
    try {
      expect((await new Api(sb).get('product')).body.productId).toEqual([]);
      expect(sb.admin.state()).toMatchObject({ account: 'demo', facilities: [], products: [], inventory: [] });
    } finally {
      await sb.close();
    }
  });

  it('describes where it listens in one line, without the secret', async () => {
    const sb = await startSandbox({ secret: 'very-secret-value' });
    try {
      const line = sandboxBanner(sb, 'demo');
      expect(line).toContain(`${sb.url}/demo/api/`);
      expect(line).toContain('/_admin/');
      expect(line).not.toContain('very-secret-value');
      expect(line).not.toContain('\n');
    } finally {
      await sb.close();
    }
  });
});
