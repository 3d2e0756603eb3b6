/**
 * The NDJSON file of orders a chaos run hands to the real `inventory-sync import`: good orders the feed does not
 * carry, some the feed carries too (re-deliveries across the two routes), one line repeated within the file, and a
 * few bad records, one of them a line that is not JSON at all.
 */
import { checkRecord } from '../../src/records/records.js';
import { badLineId } from '../../src/queue/record-jobs.js';
import type { BadRecord, OrderSpec } from './scenario-records.js';
import { orderKind } from '../../jobs/orders/order-kind.js';

export interface ImportPlan {
  stream: 'orders';
  /** The file's lines, in order, none blank. */
  lines: string[];
  /** The values of its JSON lines, repeats included (their job ids are the expected jobs). */
  records: unknown[];
  /** Good orders in the file (distinct). */
  good: number;
  /** Good orders of the file that the feed delivers too: one job each, synced once. */
  crossRoute: number;
  /** Those of them the feed serves only once the import has run (the others it serves at their place, before). */
  fedAfter: unknown[];
  /** Lines that repeat an earlier line of the file: `import` counts them as duplicates. */
  repeats: number;
  /** The file's bad records, each naming what its failure must name. */
  bad: BadRecord[];
  /** Lines `import` must count invalid: not JSON, or not the shape of an order. */
  invalid: number;
  /** Lines that are not JSON at all. */
  malformed: number;
}

export interface ImportPlanOptions {
  seed: number;
  /** The good orders that go into the file, in order. */
  good: OrderSpec[];
  /** orderIds of those the feed delivers too. */
  crossRoute: ReadonlySet<string>;
  /** Those of them the feed is to serve only after the import. */
  fedAfter: OrderSpec[];
  /** Whether bad records go in too. */
  withBad: boolean;
  /** A location of the account (for bad records that are bad in one field only). */
  where: { magazine: string; name: string };
  /** A product of the account. */
  product: string;
}

type Entry = { text: string; bad?: Omit<BadRecord, 'via' | 'stream'> };

/** Bad records of the file: two the shape check catches, two only the service's catalog does, one line not JSON. */
function badEntries(o: ImportPlanOptions): Entry[] {
  const id = (tag: string) => `BAD-${o.seed}-imp-${tag}`;
  const line = (over: Record<string, unknown> = {}) => ({
    productId: o.product,
    quantity: 1,
    unitPrice: 1,
    location: o.where.name,
    ...over,
  });
  const order = (tag: string, field: string, over: Record<string, unknown>): Entry => {
    const record = { orderId: id(tag), origin: o.where.magazine, lines: [line()], ...over };
    return { text: JSON.stringify(record), bad: { key: id(tag), field, record } };
  };
  const keyless = { origin: o.where.magazine, lines: [line({ quantity: 50 })] };
  return [
    order('P', 'lines.0.productId', { lines: [line({ productId: 'NO-SUCH-SKU' })] }),
    order('Q', 'lines.0.quantity', { lines: [line({ quantity: -2 })] }),
    order('M', 'lines.0.location', { lines: [line({ location: o.where.magazine })] }),
    { text: JSON.stringify(keyless), bad: { key: '(no orderId, imported)', field: 'orderId', record: keyless } },
    // Cut short, as a truncated write leaves a line; its job is named by its line number (set below).
    { text: `{"orderId":"${id('J')}","origin":"${o.where.magazine}","lines":[{"productId":`, bad: { key: id('J'), field: '', record: '' } },
  ];
}

export function buildImportPlan(o: ImportPlanOptions): ImportPlan {
  const entries: Entry[] = o.good.map((spec) => ({ text: JSON.stringify(spec) }));
  const bad = o.withBad ? badEntries(o) : [];
  // Spread the bad lines over the file, keeping their order.
  bad.forEach((e, k) => entries.splice(Math.floor(((k + 1) * entries.length) / (bad.length + 1)) + k, 0, e));
  const first = o.good[0];
  if (first) entries.push({ text: JSON.stringify(first) });

  const plan: ImportPlan = {
    stream: 'orders',
    lines: [],
    records: [],
    good: o.good.length,
    crossRoute: o.crossRoute.size,
    fedAfter: [...o.fedAfter],
    repeats: first ? 1 : 0,
    bad: [],
    invalid: 0,
    malformed: 0,
  };
  entries.forEach((e, i) => {
    const lineNo = i + 1;
    plan.lines.push(e.text);
    let value: unknown;
    try {
      value = JSON.parse(e.text);
    } catch {
      plan.invalid++;
      plan.malformed++;
      plan.bad.push({
        stream: 'orders',
        via: 'import',
        key: e.bad?.key ?? `line ${lineNo}`,
        field: `line ${lineNo}`,
        record: e.text,
        jobId: badLineId('orders', lineNo, e.text, e.bad?.key),
      });
      return;
    }
    plan.records.push(value);
    if (!checkRecord(orderKind, value).ok) plan.invalid++;
    if (e.bad) plan.bad.push({ stream: 'orders', via: 'import', ...e.bad });
  });
  return plan;
}
