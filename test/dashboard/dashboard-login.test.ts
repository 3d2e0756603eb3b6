import { afterEach, describe, expect, it } from 'vitest';
import { form, raw, startTestDashboard, type RawAnswer, type TestDashboard } from './dashboard-http.js';

/** Issue 13, items 1, 2 and 4: no secret oracle, no open redirect, throttled logins, sessions that end. */
const USER = 'ops';
const PASSWORD = 'correct-horse-battery';
const html = { accept: 'text/html' };

let t: TestDashboard | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** An answer with the guess (plain and URL-encoded) and the clock's time masked; headers but the date and the body hash. */
function masked(a: RawAnswer, guess: string): unknown {
  const mask = (s: string) =>
    s
      .split(guess)
      .join('GUESS')
      .split(encodeURIComponent(guess))
      .join('GUESS')
      .replace(/\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d+Z?)?/g, 'TIME');
  const { date: _date, etag: _etag, ...headers } = a.headers;
  return { status: a.status, headers: JSON.parse(mask(JSON.stringify(headers))), body: mask(a.body) };
}

describe('when someone guesses a secret through what the dashboard echoes', () => {
  it('answers a right and a wrong guess of the same length alike once the guess is masked, signed out and signed in', async () => {
    t = await startTestDashboard({ auth: { user: USER, password: PASSWORD } });
    const right = PASSWORD;
    const wrong = `${PASSWORD.slice(0, -1)}z`;
    const cookie = await t.login(USER, PASSWORD);
    const asked = (g: string) => [
      raw(`${t!.base}/login?next=/${g}`, { headers: html }),
      raw(`${t!.base}/${g}`, { headers: html }),
      raw(`${t!.base}/api/${g}`),
      raw(`${t!.base}/queues/${g}`, { headers: html }),
      raw(`${t!.base}/login?next=/${g}`, { method: 'POST', ...form({ user: g, password: 'not-it' }) }),
      raw(`${t!.base}/jobs/${g}`, { headers: { ...html, cookie } }),
      raw(`${t!.base}/?flash=${g}`, { headers: { ...html, cookie } }),
      raw(`${t!.base}/queues/api/queues/${g}/1`, { headers: { cookie } }),
      // The assets (served signed out too) and the search page (issue 23).
      raw(`${t!.base}/assets/${g}`, { headers: html }),
      raw(`${t!.base}/assets/flow-charts.js?v=${g}`),
      raw(`${t!.base}/find?key=${g}`, { headers: { ...html, cookie } }),
    ];
    const rights = await Promise.all(asked(right));
    const wrongs = await Promise.all(asked(wrong));
    for (const [i, a] of rights.entries()) expect(masked(a, right), `request ${i}`).toEqual(masked(wrongs[i]!, wrong));
    // Signed out, nothing of the request reaches the page: the login form shows no trace of `next`.
    expect(rights[0]!.body).not.toContain(right);
    expect(rights[4]!.body).not.toContain(right);
    // Signed in, what the operator typed is shown back as typed, never rewritten.
    expect(rights[5]!.body).toContain(`<code>${right}</code>`);
  });

  it('shows bull-board whole when the password is a word the page uses', async () => {
    t = await startTestDashboard({ auth: { user: USER, password: 'queues' } });
    const cookie = await t.login(USER, 'queues');
    const board = await raw(`${t.base}/queues`, { headers: { ...html, cookie } });
    expect(board.status).toBe(200);
    expect(board.body).toContain('<base href="/queues/"');
    expect(board.body).not.toContain('REDACTED');
  });
});

describe('when next points somewhere after login', () => {
  it('follows only paths of the dashboard itself', async () => {
    t = await startTestDashboard({ auth: { user: USER, password: PASSWORD } });
    const after = async (next: string) => {
      const r = await raw(`${t!.base}/login?next=${encodeURIComponent(next)}`, {
        method: 'POST',
        ...form({ user: USER, password: PASSWORD }),
      });
      expect(r.status, next).toBe(303);
      return r.headers.location;
    };
    for (const offSite of [
      '/\\evil.example',
      '//evil.example',
      '/.//evil.example',
      '\t//evil.example/',
      'https://evil.example/x',
      'javascript:alert(1)',
      '/\\/evil.example',
    ]) {
      expect(await after(offSite), offSite).toBe('/');
    }
    expect(await after('/jobs/orders-A-1?flash=x#top')).toBe('/jobs/orders-A-1?flash=x#top');
    expect(await after(`${t.base}/queues`)).toBe('/queues');
    // The round trip a signed-out visitor makes: the page asked for, the form, back to the page.
    const page = await raw(`${t.base}/queues/queue/orders`, { headers: html });
    expect(page.headers.location).toBe('/login?next=%2Fqueues%2Fqueue%2Forders');
    expect(await after('/queues/queue/orders')).toBe('/queues/queue/orders');
  });
});

describe('when logins are guessed', () => {
  it('answers 429 past 5 attempts from one client, even to the right password, and logs each failure without what was typed', async () => {
    // The window is Redis's (shared by every dashboard process), so it passes in real time: a short one here.
    t = await startTestDashboard({ auth: { user: USER, password: PASSWORD }, limits: { loginWindowMs: 4000 } });
    const guesses = Array.from({ length: 8 }, (_, i) => `guess-${i}-${Math.random().toString(36).slice(2)}`);
    const answers = await Promise.all(
      guesses.map((g) => raw(`${t!.base}/login`, { method: 'POST', ...form({ user: USER, password: g }) })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    const refused = answers.find((a) => a.status === 429)!;
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.body).toMatch(/Too many login attempts: try again in \d+ s\./);
    const again = await raw(`${t.base}/login`, { method: 'POST', ...form({ user: USER, password: PASSWORD }) });
    expect(again.status).toBe(429);

    const failures = t.logs().filter((l) => l.msg === 'dashboard: failed login (wrong user or password)');
    expect(failures).toHaveLength(5);
    for (const f of failures) expect(f).toMatchObject({ level: 40, client: '127.0.0.1', knownUser: true });
    expect(t.logs().filter((l) => typeof l.msg === 'string' && l.msg.startsWith('dashboard: too many login attempts'))).toEqual([
      expect.objectContaining({ client: '127.0.0.1', limit: 'client' }),
    ]);
    for (const secret of [...guesses, PASSWORD]) expect(t.logText()).not.toContain(secret);

    // Once the window has passed (Retry-After says when), the client may try again.
    await new Promise((resolve) => setTimeout(resolve, Number(again.headers['retry-after']) * 1000 + 100));
    expect((await raw(`${t.base}/login`, { method: 'POST', ...form({ user: USER, password: PASSWORD }) })).status).toBe(303);
  });

  it('limits all clients together as well', async () => {
    t = await startTestDashboard({
      auth: { user: USER, password: PASSWORD },
      limits: { loginAttemptsPerClient: 3, loginAttemptsOverall: 4, failedLoginPauseMs: 0 },
    });
    const attempt = (localAddress: string) =>
      raw(`${t!.base}/login`, { method: 'POST', localAddress, ...form({ user: 'nobody', password: 'wrong' }) });
    const first: number[] = [];
    for (let i = 0; i < 4; i++) first.push((await attempt('127.0.0.1')).status);
    expect(first).toEqual([401, 401, 401, 429]);
    // Another address: its own limit is untouched, the overall one has one attempt left.
    expect((await attempt('127.0.0.2')).status).toBe(401);
    expect((await attempt('127.0.0.2')).status).toBe(429);
    expect(
      t
        .logs()
        .filter((l) => l.msg === 'dashboard: failed login (wrong user or password)')
        .map((l) => [l.client, l.knownUser]),
    ).toEqual([
      ['127.0.0.1', false],
      ['127.0.0.1', false],
      ['127.0.0.1', false],
      ['127.0.0.2', false],
    ]);
  });

  it('does not count good logins', async () => {
    t = await startTestDashboard({ auth: { user: USER, password: PASSWORD } });
    for (let i = 0; i < 8; i++) await t.login(USER, PASSWORD);
  });
});

describe('when a session is old or unused', () => {
  it('ends it 2 hours after its last use, and 12 hours after login in any case', async () => {
    let now = Date.now();
    t = await startTestDashboard({ auth: { user: USER, password: PASSWORD }, now: () => now });
    const status = async (cookie: string) => (await raw(`${t!.base}/api/status`, { headers: { cookie } })).status;
    const login = await raw(`${t.base}/login`, { method: 'POST', ...form({ user: USER, password: PASSWORD }) });
    // express-session signs the id (s:<id>.<signature>) and says when the cookie ends with Expires: 12 h from now.
    const setCookie = String(login.headers['set-cookie']?.[0]);
    expect(setCookie).toMatch(/^isync_session=s%3A[0-9a-f]{64}\.[A-Za-z0-9%]+; Path=\/; Expires=[^;]+; HttpOnly; SameSite=Strict$/);
    const expires = Date.parse(/Expires=([^;]+)/.exec(setCookie)![1]!);
    expect(expires - Date.now()).toBeGreaterThan(43_200_000 - 5000);
    expect(expires - Date.now()).toBeLessThanOrEqual(43_200_000);

    const idle = await t.login(USER, PASSWORD);
    expect(await status(idle)).toBe(200);
    now += 2 * 3600_000 - 1000;
    expect(await status(idle)).toBe(200);
    now += 2 * 3600_000;
    expect(await status(idle)).toBe(401);

    const busy = await t.login(USER, PASSWORD);
    for (let h = 1; h < 12; h++) {
      now += 3600_000;
      expect(await status(busy), `after ${h} h`).toBe(200);
    }
    now += 3600_000;
    expect(await status(busy)).toBe(401);
    const page = await raw(`${t.base}/`, { headers: { ...html, cookie: busy } });
    expect(page.headers.location).toBe('/login?next=%2F');
  });

  it('ends it at log-out', async () => {
    t = await startTestDashboard({ auth: { user: USER, password: PASSWORD } });
    const cookie = await t.login(USER, PASSWORD);
    expect((await raw(`${t.base}/logout`, { method: 'POST', headers: { cookie } })).headers['set-cookie']?.[0]).toContain('Max-Age=0');
    expect((await raw(`${t.base}/api/status`, { headers: { cookie } })).status).toBe(401);
  });
});
