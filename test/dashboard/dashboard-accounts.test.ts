import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountPrefix } from '../../config/accounts.js';
import { baseEnv, collect, spawnCli, type CliRun } from '../cli/run-cli.js';
import { seedJobs, type Seeded } from '../cli/seed-jobs.js';
import { eventually, freePort } from '../cli/worker-process.js';
import { connect, deletePrefix, redisUrl, uniquePrefix } from '../helpers/redis.js';
import { form, raw } from './dashboard-http.js';

/** Issue 36: one dashboard (one login) for every account of ACCOUNTS_FILE, each account's pages under /a/NAME/. */
const USER = 'ops';
const PASSWORD = 'correct-horse-battery';
const BETA_FAILED = 'orders-BETA-9-000000000000';
const SECRET = 'sec-7c1e9b44d2';

/** Fails one more orders job (of beta only), through a real BullMQ worker. */
async function failJob(redis: Redis, prefix: string, id: string): Promise<void> {
  const queue = new Queue('orders', { connection: redis, prefix });
  await queue.add('orders', { record: { orderId: 'BETA-9' }, source: 'feed' }, { jobId: id, attempts: 1 });
  const conn = redis.duplicate();
  const worker = new Worker('orders', () => Promise.reject(new UnrecoverableError('[BAD_RECORD] record BETA-9: no lines')), {
    connection: conn,
    prefix,
    autorun: false,
  });
  const failed = new Promise<void>((resolve) => worker.on('failed', (job) => (job?.id === id ? resolve() : undefined)));
  void worker.run();
  await failed;
  await worker.close();
  conn.disconnect();
  await queue.close();
}

interface Served {
  base: string;
  stop(): Promise<CliRun>;
}

/** `inventory-sync dashboard` as a process on a free port, once it answers. */
async function serve(env: Record<string, string>, args: string[] = []): Promise<Served> {
  const port = await freePort();
  const child = spawnCli([...args, 'dashboard', '--port', String(port)], env);
  const done = collect(child);
  const base = `http://127.0.0.1:${port}`;
  await eventually(async () => (await fetch(`${base}/login`).catch(() => undefined))?.status === 200, 30_000, 'the dashboard');
  return {
    base,
    stop() {
      child.kill('SIGTERM');
      return done;
    },
  };
}

type Summary = { account: string; prefix: string; streams: Array<{ stream: string; waiting: number; active: number; failed: number }> };

describe('the dashboard, with ACCOUNTS_FILE', () => {
  let redis: Redis;
  let env: Record<string, string>;
  let file: string;
  const prefixes: Record<string, string> = {};
  const seeded: Record<string, Seeded> = {};
  let d: Served;
  let cookie: string;
  const get = (path: string, headers: Record<string, string> = { cookie }) => raw(`${d.base}${path}`, { headers });
  const post = (path: string, fields: Record<string, string> = {}) =>
    raw(`${d.base}${path}`, { method: 'POST', ...form(fields), headers: { ...form({}).headers, cookie, origin: d.base } });
  /** Each account its own service account and budget (nothing here calls the service: no page asked for needs it). */
  const own = (name: string, i: number) => ({
    INVENTORY_BASE_URL: 'http://127.0.0.1:9',
    INVENTORY_ACCOUNT: name,
    INVENTORY_API_KEY: `key-${name}`,
    INVENTORY_API_SECRET: `${SECRET}-${name}`,
    INVENTORY_POST_PER_MINUTE: 50 + 10 * i,
  });
  const writeAccounts = (names: string[]) =>
    writeFileSync(file, JSON.stringify({ accounts: Object.fromEntries(names.map((n, i) => [n, own(n, i)])) }));

  beforeAll(async () => {
    redis = connect();
    const queuePrefix = uniquePrefix('dash-acc');
    file = join(mkdtempSync(join(tmpdir(), 'isync-accounts-')), 'accounts.json');
    writeAccounts(['acme', 'beta']);
    for (const name of ['acme', 'beta', 'gamma']) prefixes[name] = accountPrefix(queuePrefix, name);
    // The same jobs in both accounts (same ids), and one more failed job in beta.
    seeded.acme = await seedJobs(redis, prefixes.acme!);
    seeded.beta = await seedJobs(redis, prefixes.beta!);
    await failJob(redis, prefixes.beta!, BETA_FAILED);
    env = {
      ...baseEnv(),
      REDIS_URL: redisUrl(),
      QUEUE_PREFIX: queuePrefix,
      ACCOUNTS_FILE: file,
      DASHBOARD_USER: USER,
      DASHBOARD_PASSWORD: PASSWORD,
    };
    prefixes.deployment = queuePrefix;
    d = await serve(env);
    const login = await raw(`${d.base}/login`, { method: 'POST', ...form({ user: USER, password: PASSWORD }) });
    expect(login.status).toBe(303);
    cookie = String(login.headers['set-cookie']?.[0]).split(';')[0]!;
  }, 90_000);

  afterAll(async () => {
    const r = await d?.stop();
    expect(r?.code).toBe(0);
    expect(r?.stderr ?? '').not.toContain(PASSWORD);
    expect(r?.stderr ?? '').not.toContain(SECRET);
    for (const p of Object.values(prefixes)) await deletePrefix(redis, p);
    redis.disconnect();
  });

  it('keeps the all-accounts page and every account page, API and button behind the login', async () => {
    for (const path of ['/', '/a/acme/', '/a/beta/jobs/x', '/a/acme/find?key=WEB-2', '/a/acme/reconcile']) {
      const r = await get(path, { accept: 'text/html' });
      expect([path, r.status]).toEqual([path, 303]);
      expect(r.headers.location).toBe(`/login?next=${encodeURIComponent(path)}`);
    }
    for (const path of ['/api/accounts', '/a/acme/api/status', '/a/acme/queues/api/queues']) {
      expect([path, (await get(path, {})).status]).toEqual([path, 401]);
    }
    const retry = await raw(`${d.base}/a/acme/jobs/${encodeURIComponent(seeded.acme!.failedId)}/retry`, { method: 'POST' });
    expect(retry.status).toBe(401);
    // Another site's form is refused before the login is even looked at.
    const foreign = await raw(`${d.base}/a/acme/retry-group`, {
      method: 'POST',
      ...form({ stream: 'orders', code: 'BAD_RECORD', reason: 'x' }),
      headers: { ...form({}).headers, cookie, origin: 'http://evil.example' },
    });
    expect(foreign.status).toBe(403);
  });

  it('lists both accounts on the overview, each with its own counts and a link to its pages', async () => {
    const page = await get('/');
    expect(page.status).toBe(200);
    for (const name of ['acme', 'beta']) {
      expect(page.body).toContain(`<tr data-account="${name}"><th><a href="/a/${name}/">${name}</a>`);
    }
    const { accounts } = JSON.parse((await get('/api/accounts')).body) as { accounts: Summary[] };
    // What needs a person first: beta has two failed jobs, acme one.
    expect(accounts.map((a) => [a.account, a.prefix])).toEqual([
      ['beta', prefixes.beta],
      ['acme', prefixes.acme],
    ]);
    const orders = (name: string) => accounts.find((a) => a.account === name)!.streams.find((s) => s.stream === 'orders');
    expect(orders('acme')).toMatchObject({ waiting: 0, active: 0, failed: 1 });
    expect(orders('beta')).toMatchObject({ waiting: 0, active: 0, failed: 2 });
    const row = (name: string) =>
      /<tr data-account="[^"]+">.*?<\/tr>/s.exec(page.body.slice(page.body.indexOf(`<tr data-account="${name}">`)))![0];
    // Per stream what it completed, waits, runs and failed, and how far behind its feed is: a healthy account reads as one.
    const orderCell = (name: string) => /<td data-stream="orders">.*?<\/td>/s.exec(row(name))![0];
    expect(orderCell('acme')).toContain('<span class="completed"><b>1</b> completed</span>');
    expect(orderCell('acme')).toContain(
      '<span class="waiting">0</span> waiting · <span class="active">0</span> active · <span class="failed bad">1</span> failed',
    );
    expect(orderCell('acme')).toContain('feed behind: <span class="muted">not pulled yet</span>');
    expect(orderCell('beta')).toContain('<span class="failed bad">2</span> failed');
  });

  it("shows on an account's pages only that account's jobs, under its path", async () => {
    const acme = await get('/a/acme/');
    expect(acme.status).toBe(200);
    expect(acme.body).toContain(`prefix ${prefixes.acme}`);
    expect(acme.body).toContain(`href="/a/acme/jobs/${seeded.acme!.failedId}"`);
    expect(acme.body).not.toContain('BETA-9');
    expect(acme.body).toContain('action="/a/acme/retry-group"');
    expect(acme.body).toContain('data-base="/a/acme"');
    const beta = await get('/a/beta/');
    expect(beta.body).toContain(`href="/a/beta/jobs/${BETA_FAILED}"`);
    // Each account's pages read its own prefix and its own settings (here its budget).
    type Status = { prefix: string; budget: Array<{ cls: string; configuredPerMinute: number | null }> };
    const status = (name: string) => get(`/a/${name}/api/status`).then((r) => JSON.parse(r.body) as Status);
    const post = (st: Status) => st.budget.find((b) => b.cls === 'post')?.configuredPerMinute;
    expect((await status('beta')).prefix).toBe(prefixes.beta);
    expect([post(await status('acme')), post(await status('beta'))]).toEqual([50, 60]);
    expect(acme.body + beta.body).not.toContain(SECRET);
    expect((await get(`/a/acme/jobs/${BETA_FAILED}`)).status).toBe(404);
    expect((await get(`/a/beta/jobs/${BETA_FAILED}`)).status).toBe(200);
    const flow = await get('/a/acme/api/flow?minutes=60');
    expect(flow.status).toBe(200);
    expect((await get('/a/acme/queues/api/queues')).status).toBe(200);
    // The one-account paths are not served beside the accounts: each account's are under its name.
    expect((await get('/api/status')).status).toBe(404);
  });

  it('answers 404 for an unknown or malformed account, on pages, API and buttons', async () => {
    for (const path of [
      '/a/nope/',
      '/a/ACME/',
      '/a/ac_me/',
      `/a/${'a'.repeat(33)}/`,
      '/a/acme%00/',
      '/a/-/',
      '/a/acme%2Fx/',
      '/a/nope/api/status',
    ]) {
      expect([path, (await get(path)).status]).toEqual([path, 404]);
    }
    const page = await get('/a/nope/');
    expect(page.body).toContain('No account <code>nope</code>');
    const retry = await post(`/a/nope/jobs/${encodeURIComponent(seeded.acme!.failedId)}/retry`);
    expect(retry.status).toBe(404);
  });

  it('leads every page to the all-accounts page and names the account shown (the picker), not every account', async () => {
    for (const path of ['/', '/a/acme/', '/a/beta/reconcile', `/a/acme/jobs/${seeded.acme!.failedId}`, '/a/acme/find?key=WEB-2']) {
      const body = (await get(path)).body;
      const nav = /<nav id="accounts" class="accounts" aria-label="Accounts">.*?<\/nav>/s.exec(body)?.[0] ?? '';
      expect([path, nav.includes('<a href="/"')]).toEqual([path, true]);
      const shown = /^\/a\/([a-z]+)\//.exec(path)?.[1];
      expect([path, nav.includes('data-account="acme"'), nav.includes('data-account="beta"')]).toEqual([
        path,
        shown === 'acme',
        shown === 'beta',
      ]);
    }
    expect((await get('/a/beta/reconcile')).body).toContain('<a href="/a/beta/" data-account="beta" aria-current="page">beta</a>');
    expect((await get('/')).body).toContain('<a href="/" aria-current="page">All accounts</a>');
  });

  it("retries a failed job from account A's page in A's queue only", async () => {
    const id = seeded.acme!.failedId;
    const r = await post(`/a/acme/jobs/${encodeURIComponent(id)}/retry`);
    expect(r.status).toBe(303);
    expect(r.headers.location).toMatch(new RegExp(`^/a/acme/jobs/${id}\\?flash=Retried`));
    const state = async (name: string) => {
      const q = new Queue('orders', { connection: redis, prefix: prefixes[name]! });
      const s = await (await q.getJob(id))!.getState();
      await q.close();
      return s;
    };
    expect(await state('acme')).toBe('waiting');
    // The same job id in beta stays failed; and beta's own job cannot be retried from acme's page.
    expect(await state('beta')).toBe('failed');
    const other = await post(`/a/acme/jobs/${BETA_FAILED}/retry`);
    expect(decodeURIComponent(other.headers.location as string)).toContain(`Not retried: no such job under prefix ${prefixes.acme}`);
    const group = await post('/a/beta/retry-group', { stream: 'orders', code: 'BAD_RECORD', reason: 'x', batch: 'false' });
    expect(group.headers.location).toMatch(/^\/a\/beta\/\?flash=/);
  });

  it('follows the file: an added account is served, a removed one answers 404, a changed one shows its new settings', async () => {
    writeAccounts(['gamma', 'acme']);
    await eventually(async () => (await get('/a/gamma/')).status === 200, 10_000, 'gamma served');
    expect((await get('/a/beta/')).status).toBe(404);
    expect((await get('/a/gamma/')).body).toContain(`prefix ${prefixes.gamma}`);
    expect((await get('/')).body).toContain('<tr data-account="gamma"><th><a href="/a/gamma/">gamma</a>');
    // acme moved in the file: its budget is the file's (60 now), read again.
    const postBudget = async () =>
      (JSON.parse((await get('/a/acme/api/status')).body) as { budget: Array<{ cls: string; configuredPerMinute: number }> }).budget.find(
        (b) => b.cls === 'post',
      )?.configuredPerMinute;
    expect(await postBudget()).toBe(60);
    writeAccounts(['acme', 'beta']);
    await eventually(async () => (await get('/a/beta/')).status === 200, 10_000, 'beta served again');
    expect(await postBudget()).toBe(50);
  });

  it('with --account, serves that account alone as a dashboard without the file does', async () => {
    const one = await serve(env, ['--account', 'beta']);
    try {
      const login = await raw(`${one.base}/login`, { method: 'POST', ...form({ user: USER, password: PASSWORD }) });
      const c = String(login.headers['set-cookie']?.[0]).split(';')[0]!;
      const page = await raw(`${one.base}/`, { headers: { cookie: c } });
      expect(page.body).toContain(`href="/jobs/${BETA_FAILED}"`);
      expect(page.body).not.toContain('id="accounts"');
      expect((await raw(`${one.base}/a/beta/`, { headers: { cookie: c } })).status).toBe(404);
    } finally {
      expect((await one.stop()).code).toBe(0);
    }
  });
});
