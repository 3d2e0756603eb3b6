import { describe, expect, it } from 'vitest';
import { LoginThrottle } from '../../src/dashboard/login-throttle.js';
import { Sessions } from '../../src/dashboard/sessions.js';

describe('sessions in memory', () => {
  it('sweeps the ended ones and keeps the live ones', () => {
    let now = 0;
    const sessions = new Sessions({ ttlMs: 1000, idleMs: 500, max: 10, now: () => now });
    const idle = sessions.create();
    const used = sessions.create();
    now = 400;
    expect(sessions.use(used)).toBe(true);
    now = 600;
    expect(sessions.sweep()).toBe(1);
    expect(sessions.size).toBe(1);
    expect(sessions.use(idle)).toBe(false);
    expect(sessions.use(used)).toBe(true);
    now = 1000;
    expect(sessions.sweep()).toBe(1);
    expect(sessions.size).toBe(0);
  });

  it('ends the oldest past the maximum', () => {
    const sessions = new Sessions({ ttlMs: 1000, idleMs: 1000, max: 2, now: () => 0 });
    const [a, b, c] = [sessions.create(), sessions.create(), sessions.create()];
    expect([sessions.use(a), sessions.use(b), sessions.use(c)]).toEqual([false, true, true]);
  });
});

describe('the login throttle', () => {
  it('forgets clients whose attempts left the window', () => {
    let now = 0;
    const throttle = new LoginThrottle({ perClient: 2, overall: 100, windowMs: 1000, now: () => now });
    for (let i = 0; i < 50; i++) expect(throttle.take(`10.0.0.${i}`).ok).toBe(true);
    expect(throttle.clients).toBe(50);
    now = 1000;
    throttle.sweep();
    expect(throttle.clients).toBe(0);
  });
});
