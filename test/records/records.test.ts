import { describe, expect, it } from 'vitest';
import { checkRecord } from '../../src/records/records.js';
import { MAX_CHARS } from '../../jobs/record-fields.js';
import { programKinds } from '../../jobs/kinds.js';
import { kindOf } from '../../src/records/records.js';

const line = { productId: 'MUG-BLUE', quantity: 1, unitPrice: 1, location: 'Main Warehouse / A-01' };
const order = { orderId: 'WEB-1', origin: 'Main Warehouse', lines: [line] };
const problems = (stream: string, raw: unknown) => {
  const r = checkRecord(kindOf(programKinds, stream), raw);
  return r.ok ? [] : r.problems.map((p) => `${p.field}: ${p.reason}`);
};

describe('record shapes', () => {
  describe('when an id or a name is longer than its maximum', () => {
    it.each([
      ['orders', { ...order, orderId: 'W'.repeat(MAX_CHARS.orderId + 1) }, 'orderId: must be at most 60 characters'],
      ['orders', { ...order, shipmentIdUser: 'S'.repeat(MAX_CHARS.shipmentIdUser + 1) }, 'shipmentIdUser: must be at most 100 characters'],
      ['orders', { ...order, origin: 'M'.repeat(MAX_CHARS.name + 1) }, 'origin: must be at most 255 characters'],
      [
        'orders',
        { ...order, lines: [{ ...line, productId: 'P'.repeat(MAX_CHARS.productId + 1) }] },
        'lines.0.productId: must be at most 100 characters',
      ],
      [
        'stock-counts',
        { countId: 'C'.repeat(MAX_CHARS.countId + 1), location: 'L', countDate: '2026-11-20', items: [{ productId: 'P', quantity: 1 }] },
        'countId: must be at most 120 characters',
      ],
      [
        'boms',
        { productId: 'B', components: [{ productId: 'P'.repeat(MAX_CHARS.productId + 1), quantity: 1 }] },
        'components.0.productId: must be at most 100 characters',
      ],
    ] as const)('refuses a %s record naming the field and the maximum', (stream, raw, problem) => {
      expect(problems(stream, raw)).toEqual([problem]);
    });

    it('takes one exactly at the maximum', () => {
      expect(problems('orders', { ...order, orderId: 'W'.repeat(MAX_CHARS.orderId), origin: 'M'.repeat(MAX_CHARS.name) })).toEqual([]);
    });
  });

  describe('when an orderId is a dot-segment', () => {
    it.each(['.', '..', ' .. '])('refuses %j: it would name another URL', (orderId) => {
      expect(problems('orders', { ...order, orderId })).toEqual(['orderId: must not be "." or ".."']);
    });
  });
});
