import { describe, expect, it } from 'vitest';
import { nextDueAt, ruleOf } from '../../src/feed/due-times.js';

describe('the next time of a scheduled pull', () => {
  it("fires a cron at its local time in the account's time zone, through the change of offset", () => {
    const at = (iso: string) => Date.parse(iso);
    const nightly = (tz: string) => ({ pattern: '0 19 * * *', tz });
    // 19:00 in New York is 00:00 UTC in winter (UTC-5) and 23:00 UTC in summer (UTC-4).
    expect(new Date(nextDueAt('a/stock-counts', nightly('America/New_York'), at('2026-12-01T12:00:00Z'))).toISOString()).toBe(
      '2026-12-02T00:00:00.000Z',
    );
    expect(new Date(nextDueAt('a/stock-counts', nightly('America/New_York'), at('2026-07-01T12:00:00Z'))).toISOString()).toBe(
      '2026-07-01T23:00:00.000Z',
    );
    // In Berlin, 18:00 UTC in winter; after it, the next day's.
    expect(new Date(nextDueAt('b/stock-counts', nightly('Europe/Berlin'), at('2026-12-01T18:00:00Z'))).toISOString()).toBe(
      '2026-12-02T18:00:00.000Z',
    );
  });

  it('spreads the accounts of one interval over it, each on its own slots', () => {
    const now = Date.parse('2026-12-01T12:00:00Z');
    const times = Array.from({ length: 50 }, (_, i) => nextDueAt(`acct${i}/orders`, { every: 10 }, now) - now);
    for (const t of times) expect(t).toBeGreaterThan(0);
    for (const t of times) expect(t).toBeLessThanOrEqual(10_000);
    expect(new Set(times.map((t) => Math.floor(t / 1000))).size).toBeGreaterThan(5);
    // The same member's slots are every 10 s.
    const first = nextDueAt('acct1/orders', { every: 10 }, now);
    expect(nextDueAt('acct1/orders', { every: 10 }, first)).toBe(first + 10_000);
  });

  it('keeps a rule as text, so a changed interval or cron re-scores its member', () => {
    expect(ruleOf({ every: 5 })).toBe('every 5000');
    expect(ruleOf({ pattern: '0 19 * * *', tz: 'Europe/Berlin' })).toBe('cron 0 19 * * * Europe/Berlin');
  });
});
