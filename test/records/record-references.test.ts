import { describe, expect, it } from 'vitest';
import { checkRecord, recordReferences } from '../../src/records/records.js';
import { STREAMS } from '../../jobs/kinds.js';
import type { StreamName } from '../../src/records/stream-name.js';
import { programKinds } from '../../jobs/kinds.js';
import { kindOf } from '../../src/records/records.js';

const records: Record<StreamName, unknown> = {
  orders: {
    orderId: 'R-1',
    origin: 'Main Warehouse',
    lines: [
      { productId: 'MUG-BLUE', quantity: 1, unitPrice: 1, location: 'A-01' },
      { productId: 'MUG-RED', quantity: 1, unitPrice: 1, location: '/demo/api/facility/10002' },
    ],
  },
  'stock-counts': {
    countId: 'C-1',
    location: 'Main Warehouse / A-02',
    countDate: '2026-11-21',
    items: [{ productId: 'SKU-0001', quantity: 3 }],
  },
  boms: { productId: 'GIFT-SET', components: [{ productId: 'MUG-BLUE', quantity: 2 }] },
};

describe('what a record names of the account', () => {
  it.each([
    [
      'orders',
      {
        products: ['MUG-BLUE', 'MUG-RED'],
        facilities: [
          { name: 'Main Warehouse', want: 'magazine' },
          { name: 'A-01', want: 'location' },
          { name: '/demo/api/facility/10002', want: 'location' },
        ],
      },
    ],
    ['stock-counts', { products: ['SKU-0001'], facilities: [{ name: 'Main Warehouse / A-02', want: 'location' }] }],
    ['boms', { products: ['GIFT-SET', 'MUG-BLUE'], facilities: [] }],
  ] as const)('%s: its products and facilities, each facility with the kind it must be', (stream, expected) => {
    const checked = checkRecord(kindOf(programKinds, stream), records[stream]);
    if (!checked.ok) throw new Error(JSON.stringify(checked.problems));
    expect(recordReferences(kindOf(programKinds, stream), checked.record)).toEqual(expected);
  });

  it('is defined for every stream', () => {
    expect(Object.keys(records).sort()).toEqual([...STREAMS].sort());
  });
});
