import { describe, expect, it } from 'vitest';
import { decodeRows, demo, orderBody, useSandbox } from './helpers.js';

/** docs/service.md "What the program was built for": column-major collections, ragged columns, product URLs, stock rows. */
// The spec profile's answers; the observed profile's differences are in profile-*.test.ts.
const t = useSandbox({ profile: 'spec' });
const COLLECTIONS = ['facility', 'product', 'order', 'shipment', 'inventoryvariance', 'inventoryitem'];

describe('reading (docs/service.md)', () => {
  it('answers every collection root as column-major JSON: an object of parallel arrays', async () => {
    await t.api.ok('order', orderBody('B-1'));
    for (const c of COLLECTIONS) {
      const r = await t.api.get(c);
      expect(r.status, c).toBe(200);
      expect(Array.isArray(r.body), c).toBe(false);
      for (const v of Object.values(r.body)) expect(Array.isArray(v), c).toBe(true);
    }
  });

  it('answers the columns of the behaviours doc for facilities, products and inventory items', async () => {
    const keys = async (c: string) => Object.keys((await t.api.get(c)).body);
    expect(await keys('facility')).toEqual(
      expect.arrayContaining(['facilityId', 'facilityUrl', 'facilityName', 'parentFacilityUrl', 'statusId']),
    );
    expect(await keys('product')).toEqual(expect.arrayContaining(['productId', 'productUrl', 'internalName', 'statusId']));
    expect(await keys('inventoryitem')).toEqual(
      expect.arrayContaining([
        'productId',
        'productUrl',
        'facilityUrl',
        'quantityOnHand',
        'quantityReserved',
        'quantityOnOrder',
        'lotId',
        'normalizedPackingString',
      ]),
    );
  });

  it('leaves trailing empty cells out, so columns can be shorter than the longest', async () => {
    const body = (await t.api.get('product')).body;
    expect(body.internalName.length).toBeLessThan(body.productId.length);
    const rows = decodeRows(body);
    expect(rows).toHaveLength(body.productId.length);
    expect(rows.at(-1)).toMatchObject({ statusId: 'PRODUCT_INACTIVE' });
    expect(rows.at(-1)?.internalName).toBeUndefined();
  });

  it('honours limit, the same rows first', async () => {
    const all = await t.api.rows('product');
    const some = (await t.api.get('product?limit=5')).body;
    expect(some.productId).toEqual(all.slice(0, 5).map((r) => r.productId));
    expect((await t.api.get('product?limit=0')).body.productId).toEqual([]);
    expect((await t.api.get('product?limit=-1')).status).toBe(400);
  });

  it('omits nested lists from collection rows (orders have no orderItemList)', async () => {
    await t.api.ok('order', orderBody('B-2'));
    const body = (await t.api.get('order')).body;
    expect(body.orderId).toEqual(['B-2']);
    expect(body.orderItemList).toBeUndefined();
    expect(body.orderUrl).toEqual(['/demo/api/order/B-2']);
    expect((await t.api.get('product')).body.productAssocList).toBeUndefined();
  });

  it('gives about a third of the products a URL whose id differs from their productId', async () => {
    const rows = await t.api.rows('product');
    const differ = rows.filter((r) => String(r.productUrl).split('/').pop() !== r.productId).length;
    expect(differ / rows.length).toBeGreaterThan(0.25);
    expect(differ / rows.length).toBeLessThan(0.45);
  });

  it('tells magazines (no parent) from locations (a parent)', async () => {
    const rows = await t.api.rows('facility');
    const magazines = rows.filter((r) => !r.parentFacilityUrl).map((r) => r.facilityName);
    expect(magazines).toEqual(['Main Warehouse', 'North Depot']);
    expect(rows.find((r) => r.facilityName === 'A-01')?.parentFacilityUrl).toBe(demo.main);
  });

  it('splits some (location, product) pairs over several rows, whose sum is the quantity on hand', async () => {
    const rows = await t.api.rows('inventoryitem');
    const sums = new Map<string, { n: number; sum: number }>();
    for (const r of rows) {
      const k = `${r.facilityUrl} ${r.productUrl}`;
      const s = sums.get(k) ?? { n: 0, sum: 0 };
      s.n++;
      s.sum += r.quantityOnHand as number;
      sums.set(k, s);
    }
    const split = [...sums.entries()].filter(([, s]) => s.n > 1);
    expect(split.length).toBeGreaterThan(10);
    for (const [k, s] of split) {
      const [facilityUrl, productUrl] = k.split(' ') as [string, string];
      expect(t.sb.admin.stockOnHand(facilityUrl, productUrl)).toBe(s.sum);
    }
    const mugRows = rows.filter((r) => r.productUrl === demo.mugBlue && r.facilityUrl === demo.a01);
    expect(mugRows.map((r) => r.lotId)).toEqual(['LOT-MB-1', 'LOT-MB-2']);
  });
});
