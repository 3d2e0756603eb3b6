import { describe, expect, it } from 'vitest';
import type { SandboxData } from '../../src/sandbox/sandbox-data-schema.js';
import { SANDBOX_PROFILES } from '../../src/sandbox/sandbox-options.js';
import { demo, orderBody, orderWithShipment, shipmentBody, useSandbox, type Api } from './helpers.js';

/**
 * A committed (ORDER_LOCKED) order's units count as reserved in inventoryitem (docs/service.md,
 * "States"): rows of (origin facility, product, order) with quantityReserved, released when it is edited,
 * cancelled or completed. And which action URLs an order carries in each state (observed, "Answers that vary").
 */

/** The reservation rows: what the inventory item collection reserves, as (facility, product, quantity). */
async function reserved(api: Api) {
  const rows = await api.rows('inventoryitem');
  return rows
    .filter((r) => Number(r.quantityReserved) > 0)
    .map((r) => ({
      facilityUrl: r.facilityUrl,
      productUrl: r.productUrl,
      quantityReserved: r.quantityReserved,
      quantityOnHand: r.quantityOnHand,
    }));
}

/** The items of orderBody(): 2 MUG-BLUE and 3 SKU-0003, from Main Warehouse. */
const WHOLE_ORDER = [
  { facilityUrl: demo.main, productUrl: demo.mugBlue, quantityReserved: 2, quantityOnHand: 0 },
  { facilityUrl: demo.main, productUrl: demo.sku3, quantityReserved: 3, quantityOnHand: 0 },
];

describe.each(SANDBOX_PROFILES)('reservations under the %s profile', (profile) => {
  const t = useSandbox({ profile });

  it('reserves a locked order’s units on rows of its origin facility, each an inventory item, and no stock moves', async () => {
    const o = await t.api.ok('order', orderBody('R-1'));
    expect(await reserved(t.api)).toEqual([]);
    const locked = await t.api.ok(o.actionUrlLock);
    expect(locked.invalidations).toContain('/demo/api/inventoryitem');
    expect(await reserved(t.api)).toEqual(WHOLE_ORDER);
    const row = (await t.api.rows('inventoryitem')).find((r) => Number(r.quantityReserved) > 0)!;
    expect((await t.api.get(String(row.inventoryItemUrl))).body).toMatchObject({ quantityReserved: 2, productId: 'MUG-BLUE' });
    expect(t.sb.admin.stockOnHand(demo.a01, demo.mugBlue)).toBe(40);

    await t.api.ok(`${o.orderUrl}/edit`);
    expect(await reserved(t.api)).toEqual([]);
    expect((await t.api.get(String(row.inventoryItemUrl))).status).toBe(404);
  });

  it('keeps one row per order: two locked orders of the same product reserve on two rows', async () => {
    for (const id of ['R-2', 'R-3']) await t.api.ok((await t.api.ok('order', orderBody(id))).actionUrlLock);
    expect(await reserved(t.api)).toEqual([...WHOLE_ORDER, ...WHOLE_ORDER]);
  });

  it('reserves only what is not shipped yet, and no product the order does not have', async () => {
    const { order, shipment } = await orderWithShipment(t.api, 'R-4');
    await t.api.ok(order.actionUrlLock);
    const shipped = await t.api.ok(shipment.actionUrlShip);
    expect(shipped.invalidations).toContain('/demo/api/inventoryitem');
    expect(await reserved(t.api)).toEqual([WHOLE_ORDER[1]]);
    const partial = await t.api.ok(
      'shipment',
      shipmentBody(order.orderUrl, {
        shipmentItemList: [{ facilityUrl: demo.a02, productId: 'SKU-0003', productUrl: demo.sku3, quantity: 1 }],
      }),
    );
    expect(await reserved(t.api)).toEqual([WHOLE_ORDER[1]]);
    await t.api.ok(partial.actionUrlShip);
    expect(await reserved(t.api)).toEqual([{ ...WHOLE_ORDER[1], quantityReserved: 2 }]);
  });

  for (const [how, action] of [
    ['cancelled', 'actionUrlCancel'],
    ['completed', 'actionUrlComplete'],
  ] as const) {
    it(`releases them when the order is ${how}`, async () => {
      const o = await t.api.ok('order', orderBody('R-5'));
      await t.api.ok(o.actionUrlLock);
      expect(await reserved(t.api)).toHaveLength(2);
      expect((await t.api.ok(o[action])).invalidations).toContain('/demo/api/inventoryitem');
      expect(await reserved(t.api)).toEqual([]);
    });
  }

  it('comes back from a state dump: a data file with a locked order reserves its units', async () => {
    const o = await t.api.ok('order', orderBody('R-6'));
    await t.api.ok(o.actionUrlLock);
    const dump: SandboxData = JSON.parse(JSON.stringify(t.sb.admin.state()));
    t.sb.admin.reset(dump);
    expect(await reserved(t.api)).toEqual(WHOLE_ORDER);
  });
});

/** Order action URLs and the states in which each is valid (observed). */
const VALID: Record<string, readonly string[]> = {
  ORDER_CREATED: ['actionUrlLock', 'actionUrlComplete', 'actionUrlCancel', 'reserveAllUrl'],
  ORDER_LOCKED: ['actionUrlComplete', 'actionUrlCancel', 'reserveAllUrl', 'actionUrlEdit'],
  ORDER_COMPLETED: ['actionUrlEdit'],
  ORDER_CANCELLED: [],
};
/** Each order action URL field and the last segment of its URL. */
const ACTIONS: Record<string, string> = {
  actionUrlLock: 'lock',
  actionUrlComplete: 'complete',
  actionUrlCancel: 'cancel',
  reserveAllUrl: 'reserveall',
  actionUrlEdit: 'edit',
};

describe.each(['null', 'absent'] as const)('order action URLs under observed, invalid ones %s', (invalidActions) => {
  const t = useSandbox({ profile: 'observed', invalidActions });

  it('are present only while their action is valid, in each state, in the answer and on a GET', async () => {
    const steps: Array<[string, string | null]> = [
      ['ORDER_CREATED', null],
      ['ORDER_LOCKED', 'lock'],
      ['ORDER_COMPLETED', 'complete'],
      ['ORDER_CREATED', 'edit'],
      ['ORDER_CANCELLED', 'cancel'],
    ];
    const o = await t.api.ok('order', orderBody('U-1'));
    for (const [state, action] of steps) {
      const answer = action ? await t.api.ok(`${o.orderUrl}/${action}`) : o;
      for (const seen of [answer, (await t.api.get(o.orderUrl)).body]) {
        expect(seen.statusId).toBe(state);
        for (const [f, segment] of Object.entries(ACTIONS)) {
          if (VALID[state]!.includes(f)) expect({ state, f, v: seen[f] }).toEqual({ state, f, v: `${o.orderUrl}/${segment}` });
          else if (invalidActions === 'null') expect({ state, f, v: seen[f] }).toEqual({ state, f, v: null });
          else expect(seen, `${state} ${f}`).not.toHaveProperty(f);
        }
      }
    }
  });
});
