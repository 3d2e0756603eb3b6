import { describe, expect, it } from 'vitest';
import { retryDelay } from '../../src/queue/backoff.js';

describe('retry delays', () => {
  const opts = { baseDelayMs: 1_000, maxDelayMs: 8_000 };

  it('double each attempt up to the cap, with equal jitter between half and all of it', () => {
    for (const [attempt, ceiling] of [
      [1, 1_000],
      [2, 2_000],
      [3, 4_000],
      [4, 8_000],
      [10, 8_000],
      [2_000, 8_000],
    ] as const) {
      expect(retryDelay(attempt, { ...opts, random: () => 0 })).toBe(ceiling / 2);
      expect(retryDelay(attempt, { ...opts, random: () => 0.999999 })).toBe(ceiling);
    }
  });

  it('spread between 0 and the exponential delay with full jitter', () => {
    expect(retryDelay(3, { ...opts, jitter: 'full', random: () => 0 })).toBe(1);
    expect(retryDelay(3, { ...opts, jitter: 'full', random: () => 0.5 })).toBe(2_000);
  });
});
