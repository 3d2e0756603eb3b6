import { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { form, raw, startTestDashboard, type TestDashboard } from './dashboard-http.js';

/** Issue 13, item 3: requests from other sites, foreign Host names (DNS rebinding), the headers of every answer. */
const USER = 'ops';
const PASSWORD = 'correct-horse-battery';

let t: TestDashboard | undefined;
let queue: Queue | undefined;
afterEach(async () => {
  await queue?.close();
  await t?.close();
  t = queue = undefined;
});

async function signedIn(o: Parameters<typeof startTestDashboard>[0] = {}) {
  t = await startTestDashboard({ auth: { user: USER, password: PASSWORD }, ...o });
  queue = new Queue('orders', { connection: t.redis, prefix: t.prefix });
  return { t, cookie: await t.login(USER, PASSWORD), own: t.base, queue };
}

describe('when a state-changing request comes from another site, with a valid session', () => {
  it('refuses it with 403, bull-board actions included, and lets the same request from the dashboard through', async () => {
    const { t, cookie, own, queue } = await signedIn();
    const pause = (headers: Record<string, string>) =>
      raw(`${t.base}/queues/api/queues/orders/pause`, { method: 'PUT', headers: { cookie, ...headers } });
    const foreigners: Array<Record<string, string>> = [
      { origin: 'http://evil.example' },
      { origin: 'null' },
      { origin: own.replace('http:', 'http://x.') },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site', origin: own },
    ];
    for (const foreign of foreigners) {
      const r = await pause(foreign);
      expect(r.status, JSON.stringify(foreign)).toBe(403);
      expect(r.body).toBe('Refused: the request was sent by another site.\n');
    }
    expect(await queue.isPaused()).toBe(false);
    const retry = await raw(`${t.base}/retry-group`, {
      method: 'POST',
      ...form({ stream: 'orders', code: 'X', reason: 'y' }),
      headers: { ...form({}).headers, cookie, origin: 'http://evil.example' },
    });
    expect(retry.status).toBe(403);
    const logout = await raw(`${t.base}/logout`, { method: 'POST', headers: { cookie, origin: 'http://evil.example' } });
    expect(logout.status).toBe(403);
    expect(t.logs().filter((l) => l.msg === 'dashboard: refused a request sent by another site')).toHaveLength(7);

    // From the dashboard's own pages (a browser says so), and from a program (no Origin at all): done.
    expect((await pause({ origin: own, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    expect(await queue.isPaused()).toBe(true);
    expect((await raw(`${t.base}/queues/api/queues/orders/resume`, { method: 'PUT', headers: { cookie } })).status).toBe(200);
    expect(await queue.isPaused()).toBe(false);
    expect((await raw(`${t.base}/api/status`, { headers: { cookie } })).status).toBe(200);
  });

  it('refuses a login posted from another site', async () => {
    t = await startTestDashboard({ auth: { user: USER, password: PASSWORD } });
    const r = await raw(`${t.base}/login`, {
      method: 'POST',
      ...form({ user: USER, password: PASSWORD }),
      headers: { ...form({}).headers, origin: 'http://evil.example' },
    });
    expect(r.status).toBe(403);
    expect(r.headers['set-cookie']).toBeUndefined();
  });

  it('refuses it without a login too (--no-auth)', async () => {
    t = await startTestDashboard({ auth: null });
    queue = new Queue('orders', { connection: t.redis, prefix: t.prefix });
    expect(
      (await raw(`${t.base}/queues/api/queues/orders/pause`, { method: 'PUT', headers: { 'sec-fetch-site': 'cross-site' } })).status,
    ).toBe(403);
    expect(await queue.isPaused()).toBe(false);
  });
});

describe('when a request names a Host the dashboard does not serve', () => {
  it('refuses it with 403, with a valid session, without echoing the name', async () => {
    const { t, cookie } = await signedIn();
    const port = new URL(t.base).port;
    for (const host of [
      'evil.example',
      `evil.example:${port}`,
      `localhost.evil.example:${port}`,
      `127.0.0.1.nip.io:${port}`,
      `localhost.:${port}`,
      'a b',
    ]) {
      const r = await raw(`${t.base}/api/status`, { headers: { cookie, host } });
      expect(r.status, host).toBe(403);
      expect(r.body).toBe(
        'This dashboard does not answer to that host name. Behind a proxy, set DASHBOARD_PUBLIC_URL to the URL you open.\n',
      );
    }
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`, '10.0.0.7']) {
      expect((await raw(`${t.base}/api/status`, { headers: { cookie, host } })).status, host).toBe(200);
    }
  });

  it('refuses it without a login too (--no-auth), where DNS rebinding would otherwise read everything', async () => {
    t = await startTestDashboard({ auth: null });
    expect((await raw(`${t.base}/api/status`, { headers: { host: 'rebound.evil.example' } })).status).toBe(403);
    expect((await raw(`${t.base}/api/status`)).status).toBe(200);
  });

  it('serves DASHBOARD_PUBLIC_URL behind a reverse proxy, with a Secure cookie when it is https', async () => {
    t = await startTestDashboard({ auth: { user: USER, password: PASSWORD }, publicUrl: 'https://ops.example.com' });
    const proxied = { host: 'ops.example.com', origin: 'https://ops.example.com' };
    const login = await raw(`${t.base}/login?next=%2Fqueues`, {
      method: 'POST',
      ...form({ user: USER, password: PASSWORD }),
      headers: { ...form({}).headers, ...proxied },
    });
    expect(login.status).toBe(303);
    expect(login.headers.location).toBe('/queues');
    const setCookie = String(login.headers['set-cookie']?.[0]);
    // express-session signs the id (s:<id>.<signature>); the cookie ends with Expires rather than Max-Age.
    const attributes = 'Path=\\/; Expires=[^;]+; HttpOnly; Secure; SameSite=Strict';
    expect(setCookie).toMatch(new RegExp(`^__Host-isync_session=s%3A[0-9a-f]{64}\\.[A-Za-z0-9%]+; ${attributes}$`));
    const cookie = setCookie.split(';')[0]!;
    expect((await raw(`${t.base}/api/status`, { headers: { ...proxied, cookie } })).status).toBe(200);
    expect((await raw(`${t.base}/api/status`, { headers: { host: 'other.example.com', cookie } })).status).toBe(403);
  });
});

describe('every answer', () => {
  it('forbids framing, sniffing and loading from elsewhere, and keeps its referrer at home', async () => {
    const { t, cookie } = await signedIn();
    const answers = [
      await raw(`${t.base}/login`),
      await raw(`${t.base}/`, { headers: { cookie } }),
      await raw(`${t.base}/queues`, { headers: { cookie } }),
      await raw(`${t.base}/api/status`, { headers: { host: 'evil.example' } }),
    ];
    for (const a of answers) {
      expect(a.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(a.headers['content-security-policy']).toContain("default-src 'self'");
      expect(a.headers['x-content-type-options']).toBe('nosniff');
      expect(a.headers['x-frame-options']).toBe('DENY');
      expect(a.headers['referrer-policy']).toBe('same-origin');
      expect(a.headers['cache-control']).toBe('no-store');
    }
  });
});
