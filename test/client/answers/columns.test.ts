import { describe, expect, it } from 'vitest';
import { ColumnsShapeError, decodeColumns } from '../../../src/client/answers/columns.js';

describe('decodeColumns', () => {
  describe('when the answer is column-major', () => {
    it('turns parallel arrays into one row per index', () => {
      const rows = decodeColumns({ productId: ['A', 'B'], productUrl: ['/acme/api/product/10000', '/acme/api/product/10007'] });
      expect(rows).toEqual([
        { productId: 'A', productUrl: '/acme/api/product/10000' },
        { productId: 'B', productUrl: '/acme/api/product/10007' },
      ]);
    });

    it('sizes rows by the longest column and leaves missing cells out of their rows', () => {
      const rows = decodeColumns({
        facilityUrl: ['/a/api/facility/1', '/a/api/facility/2', '/a/api/facility/3'],
        parentFacilityUrl: ['/a/api/facility/1'],
        facilityName: [],
      });
      expect(rows).toHaveLength(3);
      expect(rows[0]).toEqual({ facilityUrl: '/a/api/facility/1', parentFacilityUrl: '/a/api/facility/1' });
      expect(rows[2]).toEqual({ facilityUrl: '/a/api/facility/3' });
      // Absent, not an undefined-valued key.
      expect(Object.keys(rows[1]!)).toEqual(['facilityUrl']);
    });

    it('keeps a null cell as null', () => {
      expect(decodeColumns({ a: [1, null], b: ['x', 'y'] })[1]).toEqual({ a: null, b: 'y' });
    });
  });

  describe('when the answer is something else', () => {
    it('answers no rows for an empty object', () => {
      expect(decodeColumns({})).toEqual([]);
    });

    it('accepts an array of objects as rows', () => {
      expect(decodeColumns([{ a: 1 }, { a: 2 }])).toEqual([{ a: 1 }, { a: 2 }]);
    });

    it.each([
      ['null', null, 'the body is null'],
      ['a string', 'rows', 'the body is a string'],
      ['a number', 3, 'the body is a number'],
      ['a column that is not an array', { productId: 'A' }, 'column "productId" is a string, not an array'],
      ['an array with a non-object row', [{ a: 1 }, 2], 'row 1 is a number, not an object'],
    ])('refuses %s, saying why', (_name, body, reason) => {
      expect(() => decodeColumns(body)).toThrow(ColumnsShapeError);
      expect(() => decodeColumns(body)).toThrow(reason);
    });
  });
});
