import type { StreamName } from '../records/stream-name.js';

/**
 * The upstream feed `demo` serves, named after the sandbox's demo account (src/sandbox/demo-data.ts):
 * 20 orders (one delivered twice), stock counts for three locations (one matching what is on hand),
 * two bills of materials (one replacing an existing bill, one new), and bad records that must fail with
 * a reason naming the record, the field and the cause while everything around them syncs.
 */

const MAIN = 'Main Warehouse';
const NORTH = 'North Depot';

type Line = [productId: string, quantity: number, unitPrice: number, location: string];

function order(n: number, origin: string, lines: Line[], hour = 9): Record<string, unknown> {
  return {
    orderId: `WEB-${1000 + n}`,
    orderDate: `2026-11-20T${String(hour).padStart(2, '0')}:${String((n * 7) % 60).padStart(2, '0')}:00`,
    origin,
    lines: lines.map(([productId, quantity, unitPrice, location]) => ({ productId, quantity, unitPrice, location })),
  };
}

const m = (loc: string) => `${MAIN} / ${loc}`;
const nd = (loc: string) => `${NORTH} / ${loc}`;

const goodOrders = [
  order(1, MAIN, [['MUG-BLUE', 2, 12.5, m('A-01')]]),
  order(2, MAIN, [
    ['MUG-RED', 1, 12.5, m('A-01')],
    ['MUG-BLUE', 1, 12.5, m('A-01')],
  ]),
  order(3, MAIN, [['SKU-0001', 3, 4.2, m('A-02')]]),
  order(4, MAIN, [
    ['SKU-0003', 1, 19.9, m('A-04')],
    ['SKU-0004', 2, 7.5, m('A-05')],
  ]),
  order(5, MAIN, [['SKU-0005', 1, 3.1, m('A-06')]]),
  order(6, NORTH, [['SKU-0007', 2, 11, nd('N-02')]]),
  order(7, NORTH, [
    ['SKU-0008', 1, 25, nd('N-03')],
    ['SKU-0009', 1, 8.75, nd('N-04')],
  ]),
  order(8, MAIN, [['SKU-0011', 4, 1.99, m('A-02')]]),
  order(9, MAIN, [['SKU-0013', 1, 15, m('A-04')]], 10),
  order(
    10,
    MAIN,
    [
      ['SKU-0014', 2, 6.4, m('A-05')],
      ['SKU-0015', 1, 9.99, m('A-06')],
    ],
    10,
  ),
  order(11, NORTH, [['SKU-0017', 1, 42, nd('N-02')]], 10),
  order(12, NORTH, [['SKU-0018', 3, 2.5, nd('N-03')]], 11),
  order(
    13,
    NORTH,
    [
      ['SKU-0019', 1, 13.3, nd('N-04')],
      ['MUG-BLUE', 1, 12.5, nd('N-01')],
    ],
    11,
  ),
  order(14, MAIN, [['SKU-0021', 2, 5, m('A-02')]], 11),
  order(15, MAIN, [['SKU-0023', 1, 31, m('A-04')]], 12),
  order(
    16,
    MAIN,
    [
      ['SKU-0024', 1, 12, m('A-05')],
      ['SKU-0025', 2, 4, m('A-06')],
    ],
    12,
  ),
  order(17, NORTH, [['SKU-0027', 1, 18, nd('N-02')]], 13),
  order(18, NORTH, [['SKU-0028', 2, 7, nd('N-03')]], 13),
  order(19, MAIN, [['SKU-0031', 1, 22.5, m('A-02')]], 14),
  order(20, MAIN, [['SKU-0033', 5, 0.99, m('A-04')]], 14),
];

/** Bad orders: each fails at once with a reason; the others sync. */
export const badOrders = [
  order(21, MAIN, [['MUG-PURPLE', 1, 12.5, m('A-01')]], 15),
  order(22, m('A-01'), [['MUG-RED', 1, 12.5, m('A-01')]], 15),
  { orderId: 'WEB-1023', origin: MAIN, lines: [{ productId: 'MUG-RED', quantity: 'two', unitPrice: 12.5, location: m('A-01') }] },
];

const stockCounts = [
  // SKU-0010 has 70 on hand at A-01 (two lots): the count brings it to 68.
  { countId: 'CNT-2026-11-20-A01', location: m('A-01'), countDate: '2026-11-20', items: [{ productId: 'SKU-0010', quantity: 68 }] },
  // SKU-0002 has 94 on hand at A-03: nothing differs, so no variance is needed.
  { countId: 'CNT-2026-11-20-A03', location: m('A-03'), countDate: '2026-11-20', items: [{ productId: 'SKU-0002', quantity: 94 }] },
  // SKU-0006 has 82 at N-01, SKU-0016 has 58: both change.
  {
    countId: 'CNT-2026-11-20-N01',
    location: nd('N-01'),
    countDate: '2026-11-20',
    items: [
      { productId: 'SKU-0006', quantity: 80 },
      { productId: 'SKU-0016', quantity: 50 },
    ],
  },
];

const badStockCounts = [
  { countId: 'CNT-2026-11-20-Z99', location: m('Z-99'), countDate: '2026-11-20', items: [{ productId: 'SKU-0010', quantity: 1 }] },
];

const boms = [
  // GIFT-SET has a bill (2 blue mugs, 1 red): it becomes 2 blue, 2 red, replacing the entry, adding none.
  {
    productId: 'GIFT-SET',
    components: [
      { productId: 'MUG-BLUE', quantity: 2 },
      { productId: 'MUG-RED', quantity: 2 },
    ],
  },
  // SKU-0100 has none: its first bill is created.
  {
    productId: 'SKU-0100',
    components: [
      { productId: 'SKU-0101', quantity: 2 },
      { productId: 'SKU-0102', quantity: 1 },
    ],
  },
];

/** The records of each stream, in feed order; the first order comes again later (an at-least-once re-delivery). */
export function demoFeed(): Record<StreamName, unknown[]> {
  const orders = [...goodOrders.slice(0, 12), badOrders[0], ...goodOrders.slice(12), badOrders[1], goodOrders[0], badOrders[2]];
  return {
    orders: structuredClone(orders),
    'stock-counts': structuredClone([...stockCounts, ...badStockCounts]),
    boms: structuredClone(boms),
  };
}

/** What the demo expects: records per stream that should sync, and the bad ones that should fail. */
export const demoExpectations: { synced: Record<string, number>; failed: Record<string, number> } = {
  synced: { orders: goodOrders.length, 'stock-counts': stockCounts.length, boms: boms.length },
  failed: { orders: badOrders.length, 'stock-counts': badStockCounts.length, boms: 0 },
};

/** One snapshot of an order's life, as the demo tells it after the feed, one at a time, with what it stands for. */
export interface DemoLifeStep {
  stream: StreamName;
  record: Record<string, unknown>;
  told: string;
}

const lifeLines = [
  { productId: 'MUG-BLUE', quantity: 2, unitPrice: 12.5, location: m('A-01') },
  { productId: 'SKU-0001', quantity: 1, unitPrice: 4.2, location: m('A-02') },
];
const partOf = (id: string, [productId, quantity, location]: [string, number, string]) => ({
  fulfillmentId: id,
  lines: [{ productId, quantity, location }],
});
const f1 = partOf('WEB-2001-F1', ['MUG-BLUE', 2, m('A-01')]);
const f2 = partOf('WEB-2001-F2', ['SKU-0001', 1, m('A-02')]);
const life = (status: string, updatedAt: string, more: Record<string, unknown> = {}) => ({
  orderId: 'WEB-2001',
  status,
  updatedAt,
  origin: MAIN,
  lines: lifeLines,
  ...more,
});

/**
 * Two orders' lives (docs/orders.md "The order's life"): WEB-2001 placed, shipped in two parts, then a unit
 * returned to the shelf; WEB-2002 placed, then cancelled before anything shipped.
 */
export function demoLives(): DemoLifeStep[] {
  const steps: Array<[Record<string, unknown>, string]> = [
    [life('open', '2026-11-20T10:00:00'), 'placed'],
    [life('open', '2026-11-20T11:00:00', { fulfillments: [f1] }), 'first part shipped'],
    [life('fulfilled', '2026-11-20T12:00:00', { fulfillments: [f1, f2] }), 'second part shipped'],
    [
      life('fulfilled', '2026-11-23T10:00:00', {
        fulfillments: [f1, f2],
        returns: [
          {
            returnId: 'WEB-2001-R1',
            restock: true,
            returnedAt: '2026-11-23T09:30:00',
            lines: [{ productId: 'MUG-BLUE', quantity: 1, location: m('A-01') }],
          },
        ],
      }),
      'a mug came back',
    ],
    [{ ...life('open', '2026-11-20T10:00:00'), orderId: 'WEB-2002' }, 'placed'],
    [{ ...life('cancelled', '2026-11-20T10:30:00'), orderId: 'WEB-2002' }, 'cancelled'],
  ];
  return steps.map(([record, told]) => ({ stream: 'orders', record: structuredClone(record), told }));
}
