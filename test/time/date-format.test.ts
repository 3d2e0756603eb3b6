import { describe, expect, it } from 'vitest';
import { localDateTime, shortDateTime, utcDay } from '../../src/time/date-format.js';

describe('date formats', () => {
  it('shows an ISO timestamp to the second, with a space, or the placeholder when there is none', () => {
    expect(shortDateTime('2026-11-20T19:00:05.123Z')).toBe('2026-11-20 19:00:05');
    expect(shortDateTime(null, '-')).toBe('-');
    expect(shortDateTime(undefined)).toBe('');
  });

  it('gives the UTC day of an instant', () => {
    expect(utcDay(Date.UTC(2026, 10, 20, 23, 59, 59))).toBe('2026-11-20');
  });

  it('writes local time with no zone, zero-padded, as the service does', () => {
    const ms = new Date(2026, 0, 2, 3, 4, 5).getTime();
    expect(localDateTime(ms)).toBe('2026-01-02T03:04:05');
  });
});
