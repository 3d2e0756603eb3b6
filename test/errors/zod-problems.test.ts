import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { problemLine, zodProblems, zodProblemText } from '../../src/errors/zod-problems.js';

const schema = z.object({ id: z.string(), lines: z.array(z.object({ sku: z.string(), qty: z.number() })) });
const issuesOf = (value: unknown) => {
  const r = schema.safeParse(value);
  if (r.success) throw new Error('expected a bad value');
  return r.error.issues;
};

describe('zod problems', () => {
  describe('as fields and reasons', () => {
    it('names each field by its dotted path, and the whole value by the name given', () => {
      expect(zodProblems(issuesOf({ id: 1, lines: [{ sku: 'A', qty: 'x' }] }))).toEqual([
        { field: 'id', reason: expect.stringContaining('expected string') },
        { field: 'lines.0.qty', reason: expect.stringContaining('expected number') },
      ]);
      expect(zodProblems(issuesOf(null), { whole: '(record)' })).toEqual([{ field: '(record)', reason: expect.any(String) }]);
    });

    it('puts a prefix before every field, and indexes in brackets when asked', () => {
      const [p] = zodProblems(issuesOf({ id: 'a', lines: [{ sku: 'A' }] }), { under: 'data.', brackets: true });
      expect(p!.field).toBe('data.lines[0].qty');
    });

    it("says what a missing field is in the edge's own words", () => {
      expect(zodProblems(issuesOf({ lines: [] }), { missing: 'is required' })).toEqual([{ field: 'id', reason: 'is required' }]);
    });
  });

  describe('as text', () => {
    it('says field: reason for each, at most as many as asked, then how many more', () => {
      const issues = issuesOf({ lines: [{}, {}] });
      expect(issues.length).toBe(5);
      expect(zodProblemText(issues, { missing: 'is missing', max: 2, countMore: true })).toBe(
        'id: is missing; lines.0.sku: is missing; and 3 more',
      );
    });

    it('says a reason alone when it names its field already, or when there is no field', () => {
      expect(problemLine({ field: 'PORT', reason: 'PORT: must be a number' })).toBe('PORT: must be a number');
      expect(problemLine({ field: '', reason: 'expected object' })).toBe('expected object');
      expect(problemLine({ field: 'PORT', reason: 'must be a number' })).toBe('PORT: must be a number');
    });
  });
});
