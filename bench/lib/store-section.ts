import { runStorePull, type StorePullFigures } from '../store-pull.js';
import type { BenchOptions } from './bench-options.js';
import { markdownTable } from './tables.js';

const row = (f: StorePullFigures) => [
  f.shape === 'placed' ? 'placed (2 line items)' : 'lived (2 line items, 2 fulfillments, 1 refund)',
  f.orders,
  f.pages,
  f.seconds,
  f.perMinute.toLocaleString('en'),
  f.requested,
  f.actual,
  f.perOrder,
  f.steadyPerMinute.toLocaleString('en'),
  f.throttled,
];

/** Section 17 of docs/benchmarks.md: a store's pull at the standard plan's limits (issue 47). */
export async function storePullSection(o: BenchOptions, say: (line: string) => void) {
  const orders = o.quick ? 150 : 300;
  const figures: StorePullFigures[] = [];
  for (const shape of ['placed', 'lived'] as const) {
    say(`store: a pull of ${orders} ${shape} orders at the standard plan's bucket`);
    figures.push(await runStorePull(orders, shape));
  }
  return {
    title: "A store's pull: orders a minute at the standard plan's limits, and the points each page costs",
    body: [
      "The sandbox Shopify store (src/sandbox/shopify/) with the standard plan's bucket (2,000 points, restoring 100 a second) " +
        'holds the orders; the store source (src/sources/shopify/) reads them all from an empty cursor as one pull does, page by page, ' +
        "each page waiting until the bucket holds what it asks. Orders a minute over the run (the bucket's first 2,000 points " +
        'included), and once they are spent: the restore rate over what an order costs. Points are medians per answer; ' +
        'a page asks what its `first` and nesting may hold, and costs what it held (the bucket is refunded the difference).',
      '',
      `Command: \`npx tsx bench/store-pull.ts --orders ${orders}\``,
      '',
      markdownTable(
        [
          'orders',
          'count',
          'answers',
          's',
          'orders/min (run)',
          'points asked a page',
          'points cost a page',
          'points an order',
          'orders/min (steady)',
          'THROTTLED',
        ],
        figures.map(row),
      ),
    ],
  };
}
