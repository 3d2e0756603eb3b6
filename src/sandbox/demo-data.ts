import type { SandboxData } from './sandbox-data-schema.js';

const n4 = (n: number) => String(n).padStart(4, '0');
const ADJECTIVES = ['Steel', 'Oak', 'Compact', 'Large', 'Slim', 'Heavy', 'Bright', 'Classic'];
const NOUNS = ['Bracket', 'Hinge', 'Lamp', 'Shelf', 'Cable', 'Valve', 'Clamp', 'Panel', 'Hook', 'Filter', 'Spool', 'Gasket', 'Frame'];

/** Magazines and their locations (contract 2): "Main Warehouse / A-01" and so on. */
const MAGAZINES = [
  { id: '10000', name: 'Main Warehouse', locations: ['A-01', 'A-02', 'A-03', 'A-04', 'A-05', 'A-06'] },
  { id: '20000', name: 'North Depot', locations: ['N-01', 'N-02', 'N-03', 'N-04'] },
];

/**
 * The deterministic demo account: 2 magazines with 10 locations, 251 products (SKU-0001..SKU-0240, mugs, kits,
 * a few inactive ones) of which about a third have a productUrl id that differs from the productId (every SKU
 * divisible by 3: SKU-0003 -> /demo/api/product/10003), stock on hand with some pairs split across lots or
 * packings, and bills of materials on GIFT-SET, KIT-OFFICE, KIT-CAMPING and SKU-0231..SKU-0235.
 */
export function demoData(account = 'demo'): SandboxData {
  const api = `/${account}/api`;
  const facilityUrl = (id: string) => `${api}/facility/${encodeURIComponent(id)}`;
  const facilities: NonNullable<SandboxData['facilities']> = [];
  const locationUrls: string[] = [];
  const locationByName = new Map<string, string>();
  for (const m of MAGAZINES) {
    facilities.push({ facilityId: m.id, facilityName: m.name, parentFacilityUrl: null });
    m.locations.forEach((name, i) => {
      const id = String(Number(m.id) + i + 1);
      facilities.push({ facilityId: id, facilityName: name, parentFacilityUrl: facilityUrl(m.id) });
      locationUrls.push(facilityUrl(id));
      locationByName.set(name, facilityUrl(id));
    });
  }
  const loc = (name: string) => locationByName.get(name) as string;

  const products: NonNullable<SandboxData['products']> = [];
  const urlOf = new Map<string, string>();
  const add = (productId: string, internalId: string, internalName: string | null, statusId = 'PRODUCT_ACTIVE') => {
    const productUrl = `${api}/product/${encodeURIComponent(internalId)}`;
    urlOf.set(productId, productUrl);
    products.push({ productId, productUrl, internalName, statusId, productAssocList: [] });
  };
  for (let n = 1; n <= 240; n++) {
    const id = `SKU-${n4(n)}`;
    add(id, n % 3 === 0 ? String(10000 + n) : id, `${ADJECTIVES[n % ADJECTIVES.length]} ${NOUNS[n % NOUNS.length]} ${n4(n)}`);
  }
  add('MUG-BLUE', 'MUG-BLUE', 'Blue mug');
  add('MUG-RED', '20002', 'Red mug');
  add('MUG-GREEN', 'MUG-GREEN', 'Green mug');
  add('GIFT-SET', '20004', 'Gift set: two blue mugs and a red one');
  add('KIT-OFFICE', '20005', 'Office kit');
  add('KIT-CAMPING', 'KIT-CAMPING', 'Camping kit');
  add('SPARE-PARTS', 'SPARE-PARTS', 'Spare parts');
  for (let n = 1; n <= 4; n++) add(`OLD-${n4(n)}`, n % 2 === 0 ? String(30000 + n) : `OLD-${n4(n)}`, null, 'PRODUCT_INACTIVE');

  const bom = (parent: string, components: Array<[string, number]>) => {
    const p = products.find((x) => x.productId === parent);
    p?.productAssocList?.push({
      productAssocTypeId: 'MANUF_COMPONENT',
      productAssocItemList: components.map(([c, quantity]) => ({ productUrl: urlOf.get(c) as string, quantity })),
    });
  };
  bom('GIFT-SET', [
    ['MUG-BLUE', 2],
    ['MUG-RED', 1],
  ]);
  bom('KIT-OFFICE', [
    ['SKU-0010', 1],
    ['SKU-0011', 2],
    ['SKU-0012', 1],
  ]);
  bom('KIT-CAMPING', [['SKU-0020', 4]]);
  for (let n = 231; n <= 235; n++)
    bom(`SKU-${n4(n)}`, [
      [`SKU-${n4(n - 200)}`, (n % 3) + 1],
      [`SKU-${n4(n - 190)}`, 1],
    ]);

  const inventory: NonNullable<SandboxData['inventory']> = [];
  const stock = (productId: string, facility: string, quantityOnHand: number, lotId: string | null = null, pack: string | null = null) =>
    inventory.push({
      facilityUrl: facility,
      productUrl: urlOf.get(productId) as string,
      quantityOnHand,
      lotId,
      normalizedPackingString: pack,
    });
  for (let n = 1; n <= 240; n++) {
    const id = `SKU-${n4(n)}`;
    const primary = locationUrls[n % locationUrls.length] as string;
    const q = 20 + ((n * 37) % 80);
    if (n % 5 === 0) {
      // Split across two lots: the quantity on hand is the sum of both rows.
      stock(id, primary, Math.floor(q / 2), `LOT-${n4(n)}-A`);
      stock(id, primary, q - Math.floor(q / 2), `LOT-${n4(n)}-B`);
    } else stock(id, primary, q);
    if (n % 8 === 0) stock(id, primary, 6, null, '6 x 1 EA');
    if (n % 4 === 0) stock(id, locationUrls[(n * 7 + 3) % locationUrls.length] as string, 5 + (n % 20));
  }
  stock('MUG-BLUE', loc('A-01'), 25, 'LOT-MB-1');
  stock('MUG-BLUE', loc('A-01'), 15, 'LOT-MB-2');
  stock('MUG-BLUE', loc('N-01'), 12);
  stock('MUG-RED', loc('A-01'), 30);
  stock('MUG-GREEN', loc('A-02'), 8);
  stock('GIFT-SET', loc('A-03'), 5);

  return { account, facilities, products, inventory };
}
