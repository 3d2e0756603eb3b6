import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../src/client/service-client.js';
import { SANDBOX_PROFILES } from '../../src/sandbox/sandbox-options.js';
import { demo, orderBody, orderWithShipment, shipmentBody, useSandbox } from './helpers.js';

/**
 * The order's states as docs/service.md "States" reads them: lock commits, edit makes a
 * committed order editable again, cancel takes the order's shipments with it. Under each profile, the life
 * through the typed client's rows (orderAction, modifyOrder), the refusals over plain HTTP.
 */

/** The status of a refused write to a completed or cancelled order, per profile. */
const REFUSAL = { observed: 403, spec: 400 } as const;
const LOCKED_MSG = (id: string) => `Order ${id} is locked and cannot be modified`;

describe.each(SANDBOX_PROFILES)('the order life under the %s profile', (profile) => {
  const t = useSandbox({ profile });
  let client: ServiceClient;
  beforeAll(() => {
    client = new ServiceClient({ baseUrl: t.sb.url, account: t.sb.account, apiKey: t.sb.key, apiSecret: t.sb.secret, readRetries: 0 });
  });
  afterAll(() => client.close());

  const mugRed = { productId: 'MUG-RED', productUrl: demo.mugRed, unitPrice: 4, quantity: 5 };

  it('creates, locks, refuses a change, edits, changes the items, locks again, ships and completes', async () => {
    const created = await client.createOrder(orderBody('L-1') as Parameters<ServiceClient['createOrder']>[0]);
    const locked = await client.orderAction(created.actionUrlLock!);
    expect(locked.statusId).toBe('ORDER_LOCKED');
    expect(locked.actionUrlEdit).toBe('/demo/api/order/L-1/edit');
    const refused = await t.api.post(created.orderUrl!, { orderItemList: [mugRed] });
    expect(refused).toMatchObject({ status: 400, body: { msg: LOCKED_MSG('L-1') } });
    await expect(client.modifyOrder(created.orderUrl!, { orderItemList: [mugRed] })).rejects.toMatchObject({ status: 400 });

    const edited = await client.orderAction(locked.actionUrlEdit!);
    expect(edited.statusId).toBe('ORDER_CREATED');
    const changed = await client.modifyOrder(created.orderUrl!, { orderItemList: [mugRed] });
    expect(changed.orderItemList).toEqual([expect.objectContaining({ productId: 'MUG-RED', quantity: 5 })]);
    expect(changed.orderItemListTotal).toBe(20);

    expect((await client.orderAction(edited.actionUrlLock!)).statusId).toBe('ORDER_LOCKED');
    const s = await t.api.ok('shipment', shipmentBody(created.orderUrl!));
    expect((await t.api.ok(`${s.shipmentUrl}/ship`)).statusId).toBe('SHIPMENT_SHIPPED');
    expect((await client.completeOrder(created.actionUrlComplete!)).statusId).toBe('ORDER_COMPLETED');
    expect((await t.api.get('order/L-1/history/')).body.statusId).toEqual([
      'ORDER_CREATED',
      'ORDER_LOCKED',
      'ORDER_CREATED',
      'ORDER_LOCKED',
      'ORDER_COMPLETED',
    ]);
  });

  it('answers lock of a locked order and edit of an open one as they are, with no history entry', async () => {
    const o = await t.api.ok('order', orderBody('L-2'));
    expect((await t.api.ok(`${o.orderUrl}/edit`)).statusId).toBe('ORDER_CREATED');
    await t.api.ok(o.actionUrlLock);
    expect((await t.api.ok(o.actionUrlLock)).statusId).toBe('ORDER_LOCKED');
    expect((await t.api.get(o.orderHistoryListUrl)).body.statusId).toEqual(['ORDER_CREATED', 'ORDER_LOCKED']);
  });

  it(`refuses changes and edit to a cancelled order with ${REFUSAL[profile]}, a new shipment too`, async () => {
    const o = await t.api.ok('order', orderBody('L-3'));
    await t.api.ok(o.actionUrlLock);
    expect((await t.api.ok(o.actionUrlCancel)).statusId).toBe('ORDER_CANCELLED');
    expect(await t.api.post(o.orderUrl, { orderItemList: [mugRed] })).toMatchObject({
      status: REFUSAL[profile],
      body: { msg: 'Order L-3 is cancelled and cannot be modified' },
    });
    expect(await t.api.post(`${o.orderUrl}/edit`)).toMatchObject({
      status: REFUSAL[profile],
      body: { msg: 'Order L-3 is cancelled and cannot be edited' },
    });
    expect(await t.api.post('shipment', shipmentBody(o.orderUrl))).toMatchObject({
      status: REFUSAL[profile],
      body: { msg: 'Order L-3 is cancelled and cannot be modified' },
    });
    expect(t.sb.admin.counters().creates.shipment).toBe(0);
  });

  it(`refuses a change to a completed order with ${REFUSAL[profile]}`, async () => {
    const o = await t.api.ok('order', orderBody('L-4'));
    await t.api.ok(o.actionUrlLock);
    await t.api.ok(o.actionUrlComplete);
    expect((await t.api.post(o.orderUrl, { orderItemList: [mugRed] })).status).toBe(REFUSAL[profile]);
  });

  for (const from of ['ORDER_CREATED', 'ORDER_LOCKED']) {
    it(`cancels from ${from} with its shipments, the shipped one too, and gives no stock back`, async () => {
      const { order, shipment: shipped } = await orderWithShipment(t.api, 'L-5');
      const open = await t.api.ok('shipment', shipmentBody(order.orderUrl, { shipmentIdUser: 'second' }));
      await t.api.ok(shipped.actionUrlShip);
      if (from === 'ORDER_LOCKED') await t.api.ok(order.actionUrlLock);
      const onHand = t.sb.admin.stockOnHand(demo.a01, demo.mugBlue);
      expect(onHand).toBe(38);

      const c = await t.api.ok(order.actionUrlCancel);
      expect(c.statusId).toBe('ORDER_CANCELLED');
      expect(c.invalidations).toEqual(expect.arrayContaining([shipped.shipmentUrl, open.shipmentUrl, '/demo/api/shipment']));
      for (const s of [shipped, open]) expect((await t.api.get(s.shipmentUrl)).body.statusId).toBe('SHIPMENT_CANCELLED');
      const history = (await t.api.get(shipped.shipmentUrl)).body.statusIdHistoryList.map((h: { statusId: string }) => h.statusId);
      expect(history).toEqual([null, 'SHIPMENT_SHIPPED', 'SHIPMENT_CANCELLED']);
      expect(t.sb.admin.stockOnHand(demo.a01, demo.mugBlue)).toBe(onHand);
      expect((await t.api.ok(order.actionUrlCancel)).statusId).toBe('ORDER_CANCELLED');
    });
  }
});

describe('edit of a completed order', () => {
  describe('under the spec profile', () => {
    const t = useSandbox({ profile: 'spec' });

    it('is no action (404), while a locked order carries actionUrlEdit and edits', async () => {
      const o = await t.api.ok('order', orderBody('L-6'));
      expect(o.actionUrlEdit).toBe('/demo/api/order/L-6/edit');
      expect((await t.api.ok(o.actionUrlLock)).actionUrlEdit).toBe(o.actionUrlEdit);
      const done = await t.api.ok(o.actionUrlComplete);
      expect(done).not.toHaveProperty('actionUrlEdit');
      expect(await t.api.post(o.actionUrlEdit)).toMatchObject({
        status: 404,
        body: { msg: expect.stringMatching(/^No action edit on order L-6/) },
      });
      expect(t.sb.admin.state().orders[0]).toMatchObject({ statusId: 'ORDER_COMPLETED', actionUrlEdit: o.actionUrlEdit });
    });
  });

  describe('under the observed profile', () => {
    const t = useSandbox({ profile: 'observed' });

    it('makes it editable again', async () => {
      const o = await t.api.ok('order', orderBody('L-7'));
      await t.api.ok(o.actionUrlLock);
      const done = await t.api.ok(o.actionUrlComplete);
      expect((await t.api.ok(done.actionUrlEdit)).statusId).toBe('ORDER_CREATED');
    });
  });
});
