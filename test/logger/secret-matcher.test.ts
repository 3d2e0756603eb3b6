import { describe, expect, it } from 'vitest';
import { REDACTION_MARK, SecretMatcher } from '../../src/log/secret-matcher.js';

const M = REDACTION_MARK;

/** The stretches every occurrence of every form covers, overlapping ones together: found the slow, obvious way. */
function naiveRanges(text: string, forms: readonly string[]): Array<[number, number]> {
  const covered: Array<[number, number]> = [];
  for (const f of forms.filter((x) => x.length > 0))
    for (let at = text.indexOf(f); at >= 0; at = text.indexOf(f, at + 1)) covered.push([at, at + f.length]);
  covered.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const merged: Array<[number, number]> = [];
  for (const [s, e] of covered) {
    const last = merged.at(-1);
    if (last && s < last[1]) last[1] = Math.max(last[1], e);
    else merged.push([s, e]);
  }
  return merged;
}

/** A small deterministic generator, so a failure is the same on every run. */
function random(seed: number): () => number {
  let x = seed;
  return () => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return x / 2 ** 32;
  };
}

describe('the secret matcher', () => {
  describe('when a secret is at the start, the end or in the middle of a text', () => {
    it('replaces each occurrence by the mark and leaves the rest as it was', () => {
      const m = new SecretMatcher(['s3cr3t']);
      expect(m.redact('s3cr3t at the start')).toBe(`${M} at the start`);
      expect(m.redact('at the end s3cr3t')).toBe(`at the end ${M}`);
      expect(m.redact('in the s3cr3t middle, twice: s3cr3t')).toBe(`in the ${M} middle, twice: ${M}`);
      expect(m.redact('s3cr3t')).toBe(M);
      expect(m.redact('s3cr3s3cr3t')).toBe(`s3cr3${M}`);
    });

    it('gives back the very same string when there is nothing to hide', () => {
      const m = new SecretMatcher(['s3cr3t']);
      const text = 'nothing here but s3cr3 and 3cr3t';
      expect(m.redact(text)).toBe(text);
      expect(m.ranges(text)).toEqual([]);
      expect(new SecretMatcher().redact(text)).toBe(text);
    });
  });

  describe('when secrets overlap or touch', () => {
    it('lets the longest win when one is a prefix, a suffix or the middle of another', () => {
      const m = new SecretMatcher(['abc', 'abcdef', 'def', 'cd']);
      expect(m.redact('x abcdef y')).toBe(`x ${M} y`);
      expect(m.redact('x abc y def z cd')).toBe(`x ${M} y ${M} z ${M}`);
      expect(m.ranges('abcdefg')).toEqual([[0, 6]]);
    });

    it('hides the whole of two secrets that overlap partly, as one mark', () => {
      const m = new SecretMatcher(['key-1234', '1234-tail']);
      expect(m.redact('[key-1234-tail]')).toBe(`[${M}]`);
      expect(m.redact('key-1234-tail-and-key-1234')).toBe(`${M}-and-${M}`);
    });

    it('gives secrets that only touch a mark each', () => {
      const m = new SecretMatcher(['aaa1', 'bbb2']);
      expect(m.redact('aaa1bbb2')).toBe(`${M}${M}`);
    });

    it('finds a secret whose own text repeats (a match that restarts inside a partial one)', () => {
      const m = new SecretMatcher(['abab', 'aab']);
      expect(m.redact('aaabababx')).toBe(`a${M}x`);
      expect(m.ranges('aaabababx')).toEqual(naiveRanges('aaabababx', ['abab', 'aab']));
    });
  });

  describe('when a secret holds characters beyond ASCII', () => {
    it('matches them as they are, emoji (two code units) included, and cuts nothing in half', () => {
      const m = new SecretMatcher(['pässwörd-ü', 'key-🔑-x', 'ключ-секрет']);
      expect(m.redact('user pässwörd-ü logged in')).toBe(`user ${M} logged in`);
      expect(m.redact('🔑 key-🔑-x 🔑')).toBe(`🔑 ${M} 🔑`);
      expect(m.redact('ключ-секрет!')).toBe(`${M}!`);
      expect(m.redact('key-🔐-x')).toBe('key-🔐-x');
    });
  });

  describe('when it holds many secrets', () => {
    it('finds each of 20,000 in a text, and those only', () => {
      const next = random(7);
      const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_';
      const word = (n: number) => Array.from({ length: n }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
      const secrets = Array.from({ length: 20_000 }, () => word(12 + Math.floor(next() * 30)));
      const m = new SecretMatcher(secrets);
      expect(m.size).toBe(new Set(secrets).size);
      for (const i of [0, 1, 9_999, 19_999]) {
        const text = `{"msg":"calling with ${secrets[i]} now","n":${i}}`;
        expect(m.redact(text)).toBe(`{"msg":"calling with ${M} now","n":${i}}`);
      }
    });

    it('finds exactly what a search of every secret one by one finds, over random texts of a small alphabet', () => {
      const next = random(42);
      const word = (n: number) => Array.from({ length: n }, () => 'abc'[Math.floor(next() * 3)]).join('');
      for (let round = 0; round < 400; round++) {
        const forms = Array.from({ length: 1 + Math.floor(next() * 30) }, () => word(1 + Math.floor(next() * 7)));
        const text = word(Math.floor(next() * 60));
        const m = new SecretMatcher(forms.slice(0, 3));
        m.add(forms.slice(3));
        expect(m.ranges(text), `${JSON.stringify(forms)} in ${text}`).toEqual(naiveRanges(text, forms));
      }
    });
  });

  describe('when secrets are learned after it has been used', () => {
    it('finds the new ones from then on, and still the old ones, whatever the order of adding', () => {
      const m = new SecretMatcher(['old-secret-1']);
      expect(m.redact('new-secret-2 old-secret-1')).toBe(`new-secret-2 ${M}`);
      m.add(['new-secret-2']);
      expect(m.redact('new-secret-2 old-secret-1')).toBe(`${M} ${M}`);
      m.add(['new-secret-2', 'old-secret-1']);
      expect(m.size).toBe(2);
      for (let i = 0; i < 300; i++) {
        m.add([`account-${i}-key`, `account-${i}-secret-${'x'.repeat(i % 7)}`]);
        expect(m.redact(`(account-${i}-key)`)).toBe(`(${M})`);
      }
      expect(m.size).toBe(602);
      expect(m.redact('old-secret-1 account-0-key account-299-secret-xxxxx account-300-key')).toBe(`${M} ${M} ${M} account-300-key`);
    });

    it('ignores empty forms', () => {
      const m = new SecretMatcher(['', 'tok-1']);
      expect(m.size).toBe(1);
      expect(m.redact('a tok-1 b')).toBe(`a ${M} b`);
    });
  });
});
