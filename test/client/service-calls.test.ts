import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOnlyApi } from '../../src/client/layers/read-only-api.js';
import { orderSchema } from '../../src/client/answers/schemas.js';
import type { ApiCall, ServiceApi } from '../../src/client/service-api.js';
import { serviceCalls, type CallRow } from '../../src/client/service-calls.js';
import { ServiceClient } from '../../src/client/service-client.js';
import { shapeDecoder } from '../../src/client/answers/shape.js';
import { tracedClient } from '../../src/queue/traced-client.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';

type RowName = keyof typeof serviceCalls;

/** The path a row's template allows: `{url}` any path under the account's API, another `{name}` one segment. */
function templatePattern(row: Pick<CallRow, 'path'>, account: string): RegExp {
  const escaped = row.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
  const body = escaped.replace(/\{([A-Za-z]+)\}/g, (_, name: string) =>
    name === 'account' ? account : name === 'url' ? `/${account}/api/.+` : '[^/]+',
  );
  return new RegExp(`^${body}$`);
}

describe('the table of service calls', () => {
  let sandbox: Sandbox;
  let client: ServiceClient;
  const calls: ApiCall[] = [];

  beforeAll(async () => {
    sandbox = await startSandbox({ data: 'demo' });
    client = new ServiceClient({
      baseUrl: sandbox.url,
      account: sandbox.account,
      apiKey: sandbox.key,
      apiSecret: sandbox.secret,
      readRetries: 0,
      onCall: (call) => calls.push(call),
    });
  });
  afterAll(async () => {
    await client.close();
    await sandbox.close();
  });

  /**
   * One call of every row, in an order where each finds what it needs (the writes make the entities the reads
   * read). Typed by the API, so a row whose arguments change fails to compile here.
   */
  async function callEveryRow(api: ServiceApi): Promise<Partial<Record<RowName, unknown>>> {
    const made: Partial<Record<RowName, unknown>> = {};
    const call = async <T>(name: RowName, fn: () => Promise<T>): Promise<T> => (made[name] = await fn()) as T;
    const facilities = await call('listFacilities', () => api.listFacilities());
    const products = await call('listProducts', () => api.listProducts());
    await call('listInventoryItems', () => api.listInventoryItems());
    await call('listCollection', () => api.listCollection('shipment'));
    const main = facilities.find((f) => f.facilityName === 'Main Warehouse')!;
    const a01 = facilities.find((f) => f.facilityName === 'A-01')!;
    const mug = products.find((p) => p.productId === 'MUG-RED')!;
    const item = { productId: mug.productId, productUrl: mug.productUrl, quantity: 1 };
    const order = await call('createOrder', () =>
      api.createOrder({
        orderId: 'ROW 1/1',
        orderTypeId: 'SALES_ORDER',
        originFacilityUrl: main.facilityUrl,
        orderItemList: [{ ...item, unitPrice: 2 }],
      }),
    );
    const read = await call('getOrder', () => api.getOrder(order.orderUrl));
    await call('modifyOrder', () => api.modifyOrder(order.orderUrl, { orderItemList: [{ ...item, unitPrice: 2, quantity: 2 }] }));
    await call('orderAction', () => api.orderAction(read.actionUrlLock!));
    const shipment = await call('createShipment', () =>
      api.createShipment({
        shipmentTypeId: 'SALES_SHIPMENT',
        primaryOrderUrl: order.orderUrl,
        statusId: 'SHIPMENT_INPUT',
        shipmentItemList: [{ ...item, facilityUrl: a01.facilityUrl }],
      }),
    );
    await call('getShipment', () => api.getShipment(shipment.shipmentUrl));
    await call('modifyShipment', () => api.modifyShipment(shipment.shipmentUrl, { statusId: 'SHIPMENT_SHIPPED' }));
    await call('completeOrder', () => api.completeOrder(read.actionUrlComplete!));
    const variance = await call('createVariance', () =>
      api.createVariance({
        physicalInventoryDate: '2026-11-26T19:00:00.000',
        statusId: 'PHSCL_INV_COMMITTED',
        physicalInventoryTypeId: 'FACILITY',
        facilityUrl: a01.facilityUrl,
        inventoryItemVarianceList: [{ facilityUrl: a01.facilityUrl, productUrl: mug.productUrl, quantityOnHandVar: 1 }],
      }),
    );
    await call('getVariance', () => api.getVariance(variance.physicalInventoryUrl));
    const gift = await call('getProduct', () => api.getProduct(`/${api.account}/api/product/20004`));
    await call('updateProduct', () =>
      api.updateProduct(gift.productUrl!, { productId: gift.productId!, productUrl: gift.productUrl!, productAssocList: [] }),
    );
    return made;
  }

  it('reaches every row through the typed API, each routed by the sandbox, its answer decoded', async () => {
    calls.length = 0;
    const made = await callEveryRow(client);
    expect(Object.keys(made).sort()).toEqual(Object.keys(serviceCalls).sort());
    // One HTTP request per row, each answered 2xx on the row's method and a path its template allows.
    expect(calls).toHaveLength(Object.keys(serviceCalls).length);
    for (const [i, name] of Object.keys(made).entries()) {
      const row: CallRow<string, never[]> = serviceCalls[name as RowName];
      expect({ name, method: calls[i]!.method, cls: calls[i]!.cls, ok: calls[i]!.status! < 300 }).toEqual({
        name,
        method: row.method,
        cls: row.cls,
        ok: true,
      });
      expect(calls[i]!.path, name).toMatch(templatePattern(row, sandbox.account));
    }
  });

  it('sends a write row its body and a read row none', async () => {
    const before = sandbox.admin.requests().length;
    await client.createOrder({
      orderId: 'ROW-2',
      orderTypeId: 'SALES_ORDER',
      originFacilityUrl: '/demo/api/facility/10000',
      orderItemList: [],
    });
    await client.getOrder(client.entityPath('order', 'ROW-2'));
    const [write, read] = sandbox.admin.requests().slice(before);
    expect(write).toMatchObject({ method: 'POST', path: '/demo/api/order', body: { orderId: 'ROW-2', orderItemList: [] } });
    expect(read).toMatchObject({ method: 'GET', path: '/demo/api/order/ROW-2' });
    expect(read?.body ?? null).toBeNull();
  });

  it('refuses a collection name that is not letters before anything is sent', () => {
    expect(() => client.listCollection('order/../x')).toThrow(RangeError);
  });

  describe('when a copy of the table has rows of its own', () => {
    const table = {
      ...serviceCalls,
      getOrderById: {
        method: 'GET',
        path: '/{account}/api/order/{orderId}',
        cls: 'get',
        scope: 'entity-reads',
        decode: shapeDecoder(orderSchema),
      },
      cancelOrder: {
        method: 'POST',
        path: '/{account}/api/order/{orderId}/cancel',
        cls: 'post',
        scope: 'order-actions',
        body: () => '{}',
        decode: shapeDecoder(orderSchema),
      },
    } as const;

    it('traces them and lets read-only pass the read and refuse the write, with no layer edited', async () => {
      const api = client.apiOf(table);
      await api.createOrder({
        orderId: 'ROW 3/1',
        orderTypeId: 'SALES_ORDER',
        originFacilityUrl: '/demo/api/facility/10000',
        orderItemList: [],
      });
      const traced: ApiCall[] = [];
      const dry = tracedClient(readOnlyApi(api), (call) => traced.push(call));
      expect((await dry.getOrderById('ROW 3/1')).orderId).toBe('ROW 3/1');
      const before = sandbox.admin.requests().length;
      await expect(dry.cancelOrder('ROW 3/1')).rejects.toMatchObject({ code: 'WRITE_REFUSED', call: 'cancelOrder' });
      expect(sandbox.admin.requests().length).toBe(before);
      expect(traced.map((c) => `${c.method} ${c.path} ${c.status}`)).toEqual(['GET /demo/api/order/ROW%203%2F1 200']);

      const live = tracedClient(api, (call) => traced.push(call));
      expect((await live.cancelOrder('ROW 3/1')).statusId).toBe('ORDER_CANCELLED');
      expect(traced.map((c) => `${c.method} ${c.path}`).at(-1)).toBe('POST /demo/api/order/ROW%203%2F1/cancel');
    });
  });
});
