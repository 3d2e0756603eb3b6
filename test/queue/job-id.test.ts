import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/queue/canonical-hash.js';
import { jobIdFor, jobIdHash } from '../../src/queue/job-id.js';
import { bomKind } from '../../jobs/boms/bom-kind.js';
import { orderKind } from '../../jobs/orders/order-kind.js';
import { stockCountKind } from '../../jobs/stock/stock-count-kind.js';

describe('job ids', () => {
  it('are {stream}-{key}-{12 hex of the record hash}', () => {
    const record = { orderId: 'WEB-100231', origin: 'Main Warehouse', lines: [] };
    expect(jobIdFor(orderKind, record)).toBe(`orders-WEB-100231-${jobIdHash(record)}`);
    expect(jobIdHash(record)).toMatch(/^[0-9a-f]{12}$/);
  });

  it('do not depend on key order or absent fields', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: undefined } })).toBe('{"a":{"d":[1,{"x":1,"y":2}]},"b":1}');
    expect(jobIdFor(bomKind, { productId: 'P', components: [] })).toBe(jobIdFor(bomKind, { components: [], productId: 'P' }));
  });

  it('hash the same text as JSON.stringify of a key-sorted copy, for every kind of value', () => {
    const sortedCopy = (v: unknown): unknown => {
      if (v === null || typeof v !== 'object') return v;
      const j = v as { toJSON?: () => unknown };
      if (typeof j.toJSON === 'function') return sortedCopy(j.toJSON());
      if (Array.isArray(v)) return v.map(sortedCopy);
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, sortedCopy((v as Record<string, unknown>)[k])]),
      );
    };
    const values: unknown[] = [
      { orderId: 'WEB-1', origin: 'Main', lines: [{ quantity: 2, productId: 'A', unitPrice: 1.5, location: 'L' }] },
      { b: [1, undefined, () => 1, null], a: { z: true, y: false, x: -0 } },
      { nan: Number.NaN, inf: Number.POSITIVE_INFINITY, small: 1e-7, big: 1e21, neg: -3.25, s: 'quote " and \\ and \u2028 and é' },
      { date: new Date('2026-11-20T19:00:00.000Z'), nested: [[{ b: 1, a: 2 }], []], empty: {}, text: '' },
      [3, 'x', { k: undefined }],
      'plain',
      42,
      null,
    ];
    for (const v of values) expect(canonicalJson(v)).toBe(JSON.stringify(sortedCopy(v)));
    // Integer-like keys sort as text too (a JS object would put them first, in numeric order).
    expect(canonicalJson({ 10: 'ten', 2: 'two', a: 1 })).toBe('{"10":"ten","2":"two","a":1}');
  });

  it('change when any value changes', () => {
    expect(jobIdFor(stockCountKind, { countId: 'C', items: [{ quantity: 1 }] })).not.toBe(
      jobIdFor(stockCountKind, { countId: 'C', items: [{ quantity: 2 }] }),
    );
  });

  it('never hold a colon, whatever the key', () => {
    const id = jobIdFor(orderKind, { orderId: 'A:B C/1' });
    expect(id).not.toContain(':');
    expect(id).toMatch(/^orders-A%3AB%20C%2F1-[0-9a-f]{12}$/);
  });

  it('name records without a usable key invalid', () => {
    expect(jobIdFor(orderKind, { orderId: '  ' })).toMatch(/^orders-invalid-[0-9a-f]{12}$/);
    expect(jobIdFor(bomKind, 'not an object')).toMatch(/^boms-invalid-[0-9a-f]{12}$/);
  });
});
