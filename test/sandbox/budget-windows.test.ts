import { describe, expect, it } from 'vitest';
import { useSandbox } from './helpers.js';

/** The four ways the sandbox counts a budget (docs/sandbox-faults.md "Budgets"), seen over HTTP on its clock. */
let now = Date.UTC(2026, 10, 21, 12, 0, 0);
const t = useSandbox({ clock: () => now });
const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);
const get = async () => {
  const r = await t.api.get('product/10003');
  return { status: r.status, remaining: Number(r.headers['x-ratelimit-remaining']), reset: Number(r.headers['x-ratelimit-reset']) };
};

describe('budget windows', () => {
  it('fixed: windows aligned on the epoch, all of the limit again at the next one', async () => {
    now = T0 + 50_000;
    t.sb.admin.setBudgets({ total: { limit: 3, windowMs: 60_000 }, resetUnit: 'ms', window: 'fixed' });
    for (let i = 0; i < 3; i++) expect((await get()).status).toBe(200);
    const over = await get();
    expect(over.status).toBe(429);
    expect(over.reset).toBe(T0 + 60_000);
    now = T0 + 60_000;
    expect(await get()).toMatchObject({ status: 200, remaining: 2 });
  });

  it('offset: fixed windows that start offsetMs after the epoch', async () => {
    now = T0 + 5_000;
    t.sb.admin.setBudgets({ total: { limit: 2, windowMs: 60_000 }, resetUnit: 'ms', window: 'offset', offsetMs: 20_000 });
    expect(await get()).toMatchObject({ status: 200, reset: T0 + 20_000 });
    expect((await get()).status).toBe(200);
    expect((await get()).status).toBe(429);
    // The epoch's window boundary changes nothing; the offset one does.
    now = T0 + 19_999;
    expect((await get()).status).toBe(429);
    now = T0 + 20_000;
    expect(await get()).toMatchObject({ status: 200, remaining: 1, reset: T0 + 80_000 });
  });

  it('sliding: a request counts for a window after it, and frees its place then', async () => {
    now = T0 + 59_000;
    t.sb.admin.setBudgets({ total: { limit: 2, windowMs: 60_000 }, resetUnit: 'ms', window: 'sliding' });
    expect((await get()).status).toBe(200);
    now = T0 + 61_000;
    // A fixed window would have started again at T0 + 60 s: this one still counts the request at 59 s.
    expect(await get()).toMatchObject({ status: 200, remaining: 0 });
    const over = await get();
    expect(over.status).toBe(429);
    expect(over.reset).toBe(T0 + 119_000);
    now = T0 + 119_000;
    expect(await get()).toMatchObject({ status: 200, remaining: 0, reset: T0 + 121_000 });
    expect((await get()).status).toBe(429);
  });

  it('token-bucket: a burst of what it holds, then the limit spread over the window', async () => {
    now = T0;
    t.sb.admin.setBudgets({ total: { limit: 60, windowMs: 60_000 }, resetUnit: 'ms', window: 'token-bucket', burst: 3 });
    for (let i = 0; i < 3; i++) expect((await get()).status).toBe(200);
    const over = await get();
    expect(over.status).toBe(429);
    // A token a second: the next one in a second.
    expect(over.reset).toBe(T0 + 1_000);
    now = T0 + 1_000;
    expect((await get()).status).toBe(200);
    expect((await get()).status).toBe(429);
    // A long quiet spell fills it to its size, never past it.
    now = T0 + 600_000;
    for (let i = 0; i < 3; i++) expect((await get()).status).toBe(200);
    expect((await get()).status).toBe(429);
  });

  it('refuses an unknown shape', () => {
    expect(() => t.sb.admin.setBudgets({ total: { limit: 1, windowMs: 1_000 }, window: 'leaky' as 'fixed' })).toThrow(/window/);
  });
});
