import { describe, expect, it } from 'vitest';
import { demoData } from '../../src/sandbox/demo-data.js';
import { loadSandboxData } from '../../src/sandbox/sandbox-data.js';

/** The demo account of contract 2. */
describe('demo data', () => {
  const state = loadSandboxData('demo');

  it('is deterministic', () => {
    expect(JSON.stringify(demoData())).toBe(JSON.stringify(demoData()));
  });

  it('has the two magazines and their named locations', () => {
    const byUrl = new Map(state.facilities.map((f) => [f.facilityUrl, f]));
    const paths = state.facilities.map((f) =>
      f.parentFacilityUrl ? `${byUrl.get(f.parentFacilityUrl)?.facilityName} / ${f.facilityName}` : f.facilityName,
    );
    expect(paths).toEqual([
      'Main Warehouse',
      ...['A-01', 'A-02', 'A-03', 'A-04', 'A-05', 'A-06'].map((l) => `Main Warehouse / ${l}`),
      'North Depot',
      ...['N-01', 'N-02', 'N-03', 'N-04'].map((l) => `North Depot / ${l}`),
    ]);
  });

  it('has at least 200 products, the named ones, and about a third with an internal id that differs', () => {
    const ids = state.products.map((p) => p.productId);
    expect(ids.length).toBeGreaterThanOrEqual(200);
    expect(ids).toEqual(expect.arrayContaining(['SKU-0001', 'SKU-0200', 'MUG-BLUE', 'MUG-RED', 'GIFT-SET']));
    expect(new Set(ids).size).toBe(ids.length);
    expect(state.products.find((p) => p.productId === 'SKU-0003')?.productUrl).toBe('/demo/api/product/10003');
    const differ = state.products.filter((p) => p.productUrl !== `/demo/api/product/${p.productId}`).length;
    expect(Math.abs(differ / ids.length - 1 / 3)).toBeLessThan(0.05);
  });

  it('has bills of materials, stock in locations only, and pairs split across lots', () => {
    expect(state.products.filter((p) => p.productAssocList.length > 0).map((p) => p.productId)).toEqual(
      expect.arrayContaining(['GIFT-SET', 'KIT-OFFICE', 'KIT-CAMPING']),
    );
    const locations = new Set(state.facilities.filter((f) => f.parentFacilityUrl).map((f) => f.facilityUrl));
    expect(state.inventory.every((r) => locations.has(r.facilityUrl))).toBe(true);
    const lots = state.inventory.filter((r) => r.lotId);
    expect(lots.length).toBeGreaterThan(20);
  });

  it('moves to another account with all its URLs', () => {
    const acme = loadSandboxData('demo', 'acme');
    expect(JSON.stringify(acme)).not.toContain('/demo/api/');
    expect(acme.products[2]?.productUrl).toBe('/acme/api/product/10003');
  });
});
