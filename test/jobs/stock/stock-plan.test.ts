import { describe, expect, it } from 'vitest';
import { planDifferences, sameLines, varianceDate } from '../../../jobs/stock/count-plan.js';
import { stockCountRecordSchema } from '../../../jobs/stock/stock-count-record.js';
import { countVersionHash } from '../../../jobs/stock/count-version-hash.js';

const P = (n: number) => `/demo/api/product/${n}`;

describe('stock count plan', () => {
  describe('when some counted quantities differ from the stock on hand', () => {
    it('keeps only the non-zero differences, count minus on hand', () => {
      const onHand = new Map([
        [P(1), 10],
        [P(2), 5],
        [P(3), 7],
      ]);
      const plan = planDifferences(
        [
          { productUrl: P(1), quantity: 12 },
          { productUrl: P(2), quantity: 5 },
          { productUrl: P(3), quantity: 0 },
          { productUrl: P(4), quantity: 3 },
        ],
        onHand,
        500,
      );
      expect(plan).toEqual([
        [
          [P(1), 2],
          [P(3), -7],
          [P(4), 3],
        ],
      ]);
    });
  });

  describe('when the count matches the stock', () => {
    it('plans no variance at all', () => {
      expect(planDifferences([{ productUrl: P(1), quantity: 4 }], new Map([[P(1), 4]]), 500)).toEqual([]);
    });
    it('treats float noise as no difference', () => {
      expect(planDifferences([{ productUrl: P(1), quantity: 0.3 }], new Map([[P(1), 0.1 + 0.2]]), 500)).toEqual([]);
    });
  });

  describe('when there are more differences than the chunk size', () => {
    it('splits them into chunks of at most that size, in count order', () => {
      const items = Array.from({ length: 7 }, (_, i) => ({ productUrl: P(i), quantity: i + 1 }));
      const plan = planDifferences(items, new Map(), 3);
      expect(plan.map((c) => c.length)).toEqual([3, 3, 1]);
      expect(plan.flat().map(([url]) => url)).toEqual(items.map((i) => i.productUrl));
    });
  });

  it('dates every variance at 19:00:00.000 of the count date', () => {
    expect(varianceDate('2026-11-21')).toBe('2026-11-21T19:00:00.000');
  });

  describe('comparing variance lines', () => {
    it('ignores order and sums a product listed twice', () => {
      expect(
        sameLines(
          [
            [P(1), 2],
            [P(2), -1],
          ],
          [
            [P(2), -1],
            [P(1), 1],
            [P(1), 1],
          ],
        ),
      ).toBe(true);
    });
    it('tells a different quantity or product apart', () => {
      expect(sameLines([[P(1), 2]], [[P(1), 3]])).toBe(false);
      expect(sameLines([[P(1), 2]], [[P(2), 2]])).toBe(false);
      expect(
        sameLines(
          [[P(1), 2]],
          [
            [P(1), 2],
            [P(2), 1],
          ],
        ),
      ).toBe(false);
    });
  });

  describe('record hash', () => {
    const parse = (raw: unknown) => stockCountRecordSchema.parse(raw);
    it('does not depend on key order or unknown keys of the delivered record', () => {
      const a = { countId: 'C', location: 'A-01', countDate: '2026-11-21', items: [{ productId: 'X', quantity: 1 }] };
      const b = { items: [{ quantity: 1, productId: 'X' }], countDate: '2026-11-21', extra: true, location: 'A-01', countId: 'C' };
      expect(countVersionHash(parse(a))).toBe(countVersionHash(parse(b)));
    });
    it('changes with the content', () => {
      const a = { countId: 'C', location: 'A-01', countDate: '2026-11-21', items: [{ productId: 'X', quantity: 1 }] };
      expect(countVersionHash(parse(a))).not.toBe(countVersionHash(parse({ ...a, items: [{ productId: 'X', quantity: 2 }] })));
    });
  });
});
