import { describe, expect, it } from 'vitest';
import { SANDBOX_PROFILES } from '../../src/sandbox/sandbox-options.js';
import { orderBody, orderWithShipment, shipmentBody, useSandbox, type Api } from './helpers.js';

/** docs/service.md "What the program was built for": refused writes to a completed order, and actionUrlEdit, under each profile. */

/** What each profile answers: the status of a refused write to a completed or cancelled order. */
const REFUSAL = { observed: 403, spec: 400 } as const;

const completedOrder = async (api: Api, orderId: string) => {
  const o = await api.ok('order', orderBody(orderId));
  return { created: o, completed: await api.ok(o.actionUrlComplete) };
};

/** Every write to an order: a POST to it, each action, a new shipment for it. */
const writes = (api: Api, o: { orderUrl: string }) => [
  api.post(o.orderUrl, { orderDate: '2026-01-01T00:00:00' }),
  api.post(`${o.orderUrl}/complete`),
  api.post(`${o.orderUrl}/lock`),
  api.post(`${o.orderUrl}/reserveall`),
  api.post('shipment', shipmentBody(o.orderUrl)),
];

describe.each(SANDBOX_PROFILES)('writes to a closed order under the %s profile', (profile) => {
  const t = useSandbox({ profile });

  it(`refuses every write to a completed order with ${REFUSAL[profile]} and the completed-order msg`, async () => {
    const { created } = await completedOrder(t.api, 'C-1');
    for (const a of await Promise.all([...writes(t.api, created), t.api.post(`${created.orderUrl}/cancel`)])) {
      expect(a).toMatchObject({
        status: REFUSAL[profile],
        body: { msg: 'Order C-1 is completed and cannot be modified until it is made editable again' },
      });
    }
    expect((await t.api.get(created.orderUrl)).body.statusId).toBe('ORDER_COMPLETED');
    expect(t.sb.admin.counters().creates.shipment).toBe(0);
  });

  it(`refuses writes to a cancelled order with ${REFUSAL[profile]}`, async () => {
    const o = await t.api.ok('order', orderBody('C-2'));
    await t.api.ok(o.actionUrlCancel);
    for (const a of await Promise.all(writes(t.api, o))) {
      expect(a.status).toBe(REFUSAL[profile]);
      expect(a.body.msg).toMatch(/^Order C-2 is cancelled and cannot be /);
    }
  });

  it('still refuses a change to a locked order with 400', async () => {
    const o = await t.api.ok('order', orderBody('C-3'));
    await t.api.ok(o.actionUrlLock);
    expect(await t.api.post(o.orderUrl, { orderDate: '2026-01-01T00:00:00' })).toMatchObject({
      status: 400,
      body: { msg: 'Order C-3 is locked and cannot be modified' },
    });
  });

  it('still ships a shipment of a completed order', async () => {
    const { order, shipment } = await orderWithShipment(t.api, 'C-4');
    await t.api.ok(order.actionUrlComplete);
    expect((await t.api.ok(`${shipment.shipmentUrl}/ship`)).statusId).toBe('SHIPMENT_SHIPPED');
  });
});

describe('actionUrlEdit under the observed profile', () => {
  const t = useSandbox({ profile: 'observed' });

  it('is on a completed order only, and makes it editable again: ORDER_CREATED, actionUrlComplete back', async () => {
    const { created, completed } = await completedOrder(t.api, 'E-1');
    expect(created.actionUrlEdit).toBeNull();
    expect(completed.actionUrlEdit).toBe('/demo/api/order/E-1/edit');
    const edited = await t.api.ok(completed.actionUrlEdit);
    expect(edited).toMatchObject({ statusId: 'ORDER_CREATED', actionUrlComplete: '/demo/api/order/E-1/complete', actionUrlEdit: null });
    expect((await t.api.ok(created.orderUrl, { orderDate: '2026-01-01T00:00:00' })).orderDate).toBe('2026-01-01T00:00:00');
    expect((await t.api.ok(edited.actionUrlComplete)).statusId).toBe('ORDER_COMPLETED');
    expect((await t.api.get(created.orderHistoryListUrl)).body.statusId).toEqual([
      'ORDER_CREATED',
      'ORDER_COMPLETED',
      'ORDER_CREATED',
      'ORDER_COMPLETED',
    ]);
  });

  it('answers an open order as it is, refuses a cancelled one, and is an action URL (GET is 405)', async () => {
    const o = await t.api.ok('order', orderBody('E-2'));
    expect((await t.api.ok(`${o.orderUrl}/edit`)).statusId).toBe('ORDER_CREATED');
    expect((await t.api.get(`${o.orderUrl}/edit`)).status).toBe(405);
    await t.api.ok(o.actionUrlCancel);
    expect((await t.api.post(`${o.orderUrl}/edit`)).status).toBe(403);
  });
});

describe('actionUrlEdit under the spec profile', () => {
  const t = useSandbox({ profile: 'spec' });

  it('is not there: a completed order has no way back (404 on /edit)', async () => {
    const { completed } = await completedOrder(t.api, 'E-1');
    expect(completed).not.toHaveProperty('actionUrlEdit');
    expect((await t.api.post(`${completed.orderUrl}/edit`)).status).toBe(404);
    expect((await t.api.get(completed.orderUrl)).body.statusId).toBe('ORDER_COMPLETED');
  });
});
