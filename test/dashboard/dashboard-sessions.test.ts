import { afterEach, describe, expect, it } from 'vitest';
import { form, raw, startTestDashboard, type TestDashboard } from './dashboard-http.js';

/** Issue 23: sessions (express-session) and the login throttle (rate-limiter-flexible) live in Redis. */
const USER = 'ops';
const PASSWORD = 'correct-horse-battery';
const auth = { user: USER, password: PASSWORD };

let open: TestDashboard[] = [];
afterEach(async () => {
  for (const t of open.reverse()) await t.close();
  open = [];
});

async function dashboard(o: Parameters<typeof startTestDashboard>[0] = {}): Promise<TestDashboard> {
  const t = await startTestDashboard({ auth, ...o });
  open.push(t);
  return t;
}

const status = async (t: TestDashboard, cookie: string) => (await raw(`${t.base}/api/status`, { headers: { cookie } })).status;
const wrongLogin = (t: TestDashboard) => raw(`${t.base}/login`, { method: 'POST', ...form({ user: USER, password: 'not-it' }) });

describe('when several dashboard processes serve one prefix', () => {
  it('signs in at one and is signed in at the other, and signs out at both', async () => {
    const a = await dashboard();
    const b = await dashboard({ prefix: a.prefix });
    const cookie = await a.login(USER, PASSWORD);
    expect(await status(b, cookie)).toBe(200);
    expect((await raw(`${b.base}/logout`, { method: 'POST', headers: { cookie } })).status).toBe(303);
    expect(await status(a, cookie)).toBe(401);
  });

  it('counts login attempts at both against one limit', async () => {
    const limits = { loginAttemptsPerClient: 3, failedLoginPauseMs: 0 };
    const a = await dashboard({ limits });
    const b = await dashboard({ prefix: a.prefix, limits });
    expect([(await wrongLogin(a)).status, (await wrongLogin(b)).status, (await wrongLogin(a)).status]).toEqual([401, 401, 401]);
    const refused = await wrongLogin(b);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatch(/Too many login attempts: try again in \d+ s\./);
  });

  it('does not sign in with a cookie signed for another password', async () => {
    const a = await dashboard();
    const cookie = await a.login(USER, PASSWORD);
    const b = await dashboard({ prefix: a.prefix, auth: { user: USER, password: `${PASSWORD}-new` } });
    expect(await status(b, cookie)).toBe(401);
    expect(await status(a, cookie)).toBe(200);
  });
});

describe('what a session keeps in Redis', () => {
  it('holds neither the password nor the user, and ends by itself once unused', async () => {
    const t = await dashboard();
    await t.login(USER, PASSWORD);
    const keys = await t.redis.keys(`${t.prefix}:dashboard:*`);
    const sessions = keys.filter((k) => k.includes(':dashboard:session:'));
    expect(sessions).toHaveLength(1);
    for (const key of keys) {
      const type = await t.redis.type(key);
      const value =
        type === 'string' ? await t.redis.get(key) : type === 'zset' ? await t.redis.zrange(key, '0', '-1') : await t.redis.hgetall(key);
      const text = JSON.stringify(value);
      expect(text, key).not.toContain(PASSWORD);
      expect(text, key).not.toContain(`"${USER}"`);
    }
    const ttl = await t.redis.ttl(sessions[0]!);
    expect(ttl).toBeGreaterThan(2 * 3600 - 10);
    expect(ttl).toBeLessThanOrEqual(2 * 3600);
  });

  it('ends the oldest session past the maximum', async () => {
    const t = await dashboard({ limits: { maxSessions: 2 } });
    const [first, second, third] = [await t.login(USER, PASSWORD), await t.login(USER, PASSWORD), await t.login(USER, PASSWORD)];
    expect([await status(t, first), await status(t, second), await status(t, third)]).toEqual([401, 200, 200]);
  });

  it('refuses a cookie whose signature does not match, even for a live session id', async () => {
    const t = await dashboard();
    const cookie = await t.login(USER, PASSWORD);
    const [name, value] = cookie.split('=') as [string, string];
    const id = decodeURIComponent(value).slice(2, 66);
    expect(await status(t, `${name}=${id}`)).toBe(401);
    expect(await status(t, `${name}=${encodeURIComponent(`s:${id}.forged`)}`)).toBe(401);
    expect(await status(t, cookie)).toBe(200);
  });
});
