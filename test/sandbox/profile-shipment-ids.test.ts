import { describe, expect, it } from 'vitest';
import { SANDBOX_PROFILES } from '../../src/sandbox/sandbox-options.js';
import { INTEGRITY_DUPLICATE, orderBody, shipmentBody, useSandbox } from './helpers.js';

/** docs/service.md "What the program was built for": shipment ids, and the order's shipmentUrlList, under each profile. */

describe('shipment ids under the observed profile', () => {
  const t = useSandbox({ profile: 'observed' });

  it('ignores a client shipmentId and assigns the next number, answered as a JSON number', async () => {
    const order = await t.api.ok('order', orderBody('P-1'));
    const s = await t.api.ok('shipment', shipmentBody(order.orderUrl, { shipmentId: 'SHP-P-1' }));
    expect(s.shipmentId).toBe(328966);
    expect(s.shipmentUrl).toBe('/demo/api/shipment/328966');
    expect(s.shipmentIdUser).toBe('user-name-1');
    expect((await t.api.get('shipment/SHP-P-1')).status).toBe(404);
    const read = await t.api.get(s.shipmentUrl);
    expect(read.status).toBe(200);
    expect(read.body.shipmentId).toBe(328966);
  });

  it('creates a second shipment when the same create is sent again (no duplicate error)', async () => {
    const order = await t.api.ok('order', orderBody('P-2'));
    const body = shipmentBody(order.orderUrl, { shipmentId: 'SHP-P-2' });
    const first = await t.api.ok('shipment', body);
    const again = await t.api.post('shipment', body);
    expect(again.status).toBe(200);
    expect(again.body.shipmentId).toBe(first.shipmentId + 1);
    expect((await t.api.get(order.orderUrl)).body.shipmentUrlList).toEqual([first.shipmentUrl, again.body.shipmentUrl]);
    expect(t.sb.admin.counters().creates.shipment).toBe(2);
  });

  it('lists no shipments as shipmentUrlList null, then the URL the service chose', async () => {
    const order = await t.api.ok('order', orderBody('P-3'));
    expect(order.shipmentUrlList).toBeNull();
    expect((await t.api.get(order.orderUrl)).body.shipmentUrlList).toBeNull();
    const s = await t.api.ok('shipment', shipmentBody(order.orderUrl));
    expect((await t.api.get(order.orderUrl)).body.shipmentUrlList).toEqual([s.shipmentUrl]);
  });

  it('answers numeric ids in the shipment collection too', async () => {
    const order = await t.api.ok('order', orderBody('P-4'));
    await t.api.ok('shipment', shipmentBody(order.orderUrl, { shipmentId: 'SHP-P-4' }));
    expect((await t.api.get('shipment')).body.shipmentId).toEqual([328966]);
  });

  it('takes the id back as a number or a string in a modify', async () => {
    const order = await t.api.ok('order', orderBody('P-5'));
    const s = await t.api.ok('shipment', shipmentBody(order.orderUrl));
    expect((await t.api.post(s.shipmentUrl, { shipmentId: s.shipmentId, shipmentIdUser: 'renamed' })).status).toBe(200);
    expect((await t.api.post(s.shipmentUrl, { shipmentId: String(s.shipmentId) })).status).toBe(200);
    expect((await t.api.post(s.shipmentUrl, { shipmentId: 'SHP-P-5' })).status).toBe(400);
  });
});

describe('shipment ids under the spec profile', () => {
  const t = useSandbox({ profile: 'spec' });

  it('keeps a client shipmentId, as a string, in the URL', async () => {
    const order = await t.api.ok('order', orderBody('P-1'));
    const s = await t.api.ok('shipment', shipmentBody(order.orderUrl, { shipmentId: 'SHP-P-1' }));
    expect(s).toMatchObject({ shipmentId: 'SHP-P-1', shipmentUrl: '/demo/api/shipment/SHP-P-1' });
    expect((await t.api.get('shipment/SHP-P-1')).body.shipmentId).toBe('SHP-P-1');
  });

  it('refuses the same create again as a duplicate', async () => {
    const order = await t.api.ok('order', orderBody('P-2'));
    const body = shipmentBody(order.orderUrl, { shipmentId: 'SHP-P-2' });
    await t.api.ok('shipment', body);
    const again = await t.api.post('shipment', body);
    expect(again.status).toBe(400);
    expect(again.body.msg).toBe(`${INTEGRITY_DUPLICATE}shipment with shipmentId SHP-P-2`);
    expect(t.sb.admin.counters().creates.shipment).toBe(1);
  });

  it('assigns a numeric id as a string when none is sent, and lists no shipments as []', async () => {
    const order = await t.api.ok('order', orderBody('P-3'));
    expect(order.shipmentUrlList).toEqual([]);
    const s = await t.api.ok('shipment', shipmentBody(order.orderUrl));
    expect(s.shipmentId).toBe('10000');
    expect((await t.api.get(order.orderUrl)).body.shipmentUrlList).toEqual([s.shipmentUrl]);
  });
});

describe.each(SANDBOX_PROFILES)('under the %s profile', (profile) => {
  const t = useSandbox({ profile });

  it("finds the order's shipment through the order's shipmentUrlList", async () => {
    const order = await t.api.ok('order', orderBody('P-9'));
    const created = await t.api.ok('shipment', shipmentBody(order.orderUrl, { shipmentId: 'SHP-P-9', shipmentIdUser: 'P-9-1' }));
    const [url] = (await t.api.get(order.orderUrl)).body.shipmentUrlList;
    const found = (await t.api.get(url)).body;
    expect(found).toMatchObject({ shipmentIdUser: 'P-9-1', primaryOrderUrl: order.orderUrl, shipmentUrl: created.shipmentUrl });
    expect(String(found.shipmentId)).toBe(String(created.shipmentId));
  });
});
