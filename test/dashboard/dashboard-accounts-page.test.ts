import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountPrefix } from '../../config/accounts.js';
import type { DashboardAccount } from '../../src/dashboard/accounts-routes.js';
import { redisKeys } from '../../src/redis/connection.js';
import { seedJobs } from '../cli/seed-jobs.js';
import { deletePrefix, uniquePrefix } from '../helpers/redis.js';
import { raw, startTestDashboard, type TestDashboard } from './dashboard-http.js';

/** Issue 56: the all-accounts page at many accounts: those that need a person first, then a page of the rest, searchable. */
const names = [...Array.from({ length: 199 }, (_, i) => `shop-${String(i + 1).padStart(3, '0')}`), 'north-harbor-7'];
/** The three that need a person, in the order the page takes them: a stream paused, failed jobs, the service down. */
const PAUSED = 'shop-150';
const FAILED = 'shop-007';
const OUTAGE = 'shop-100';
const rowsOf = (body: string) => [...body.matchAll(/<tr data-account="([^"]+)">/g)].map((m) => m[1]!);

describe('the all-accounts page, with 200 accounts', () => {
  let t: TestDashboard;
  let base: string;
  let queuePrefix: string;
  const prefixOf = (name: string) => accountPrefix(queuePrefix, name);
  const get = (path: string) => raw(`${t.base}${path}`);

  beforeAll(async () => {
    queuePrefix = uniquePrefix('dash-page');
    const accounts: DashboardAccount[] = names.map((name) => ({ name, prefix: prefixOf(name) }));
    t = await startTestDashboard({ accounts: { current: () => accounts } });
    base = t.base;
    const now = Date.now();
    await t.redis.hset(redisKeys(prefixOf(PAUSED)).breaker('orders'), {
      state: 'open',
      since: now - 60_000,
      reason: '[UNAUTHORIZED] key revoked',
    });
    await seedJobs(t.redis, prefixOf(FAILED));
    await t.redis.hset(redisKeys(prefixOf(OUTAGE)).outage(), { state: 'open', since: now - 30_000, reason: 'HTTP 503' });
  }, 60_000);

  afterAll(async () => {
    for (const name of [PAUSED, FAILED, OUTAGE]) await deletePrefix(t.redis, prefixOf(name));
    await t?.close();
  });

  it('lists first the accounts that need a person, most pressing first, then the rest by name, 50 a page', async () => {
    const page = await get('/');
    expect(page.status).toBe(200);
    const rows = rowsOf(page.body);
    expect(rows).toHaveLength(50);
    const rest = names.filter((n) => ![PAUSED, FAILED, OUTAGE].includes(n)).sort();
    expect(rows).toEqual([PAUSED, FAILED, OUTAGE, ...rest.slice(0, 47)]);
    // Each row leads to the account's own pages, and says what holds it.
    expect(page.body).toContain(`<tr data-account="${PAUSED}"><th><a href="/a/${PAUSED}/">${PAUSED}</a>`);
    expect(page.body).toContain('orders paused since');
    expect(page.body).toContain('every stream: the service is down since');
    // The counts of every account by state, and when they were read.
    const counts = /<p id="accounts-counts">.*?<\/p>/s.exec(page.body)![0];
    expect(counts).toContain('<b>200 accounts</b>');
    expect(counts).toContain('3 need a person');
    expect(counts).toMatch(/ 1 with a stream paused<.*? 1 with failed jobs<.*? 1 with the service down<.*? 0 working<.*? 197 idle/s);
    expect(page.body).toMatch(/As of <span id="accounts-at">\d\d:\d\d:\d\d<\/span> UTC/);
    expect(page.body).toContain('1-50 of 200 accounts, page 1 of 4.');
    // Page size is bounded by the page, not by the accounts: 50 rows of 200.
    expect(page.body.length).toBeLessThan(120_000);
  });

  it('links to the other pages, and page 2 holds the next 50', async () => {
    const first = await get('/');
    expect(first.body).toContain('<a rel="next" href="/?page=2">next →</a>');
    expect(first.body).toContain('<a href="/?page=4">4</a>');
    const href = /<a rel="next" href="([^"]+)">/.exec(first.body)![1]!;
    const second = await get(href.replaceAll('&amp;', '&'));
    expect(second.status).toBe(200);
    const rest = names.filter((n) => ![PAUSED, FAILED, OUTAGE].includes(n)).sort();
    expect(rowsOf(second.body)).toEqual(rest.slice(47, 97));
    expect(second.body).toContain('<a href="/?page=2" aria-current="page">2</a>');
    expect(second.body).toContain('<a rel="prev" href="/">← previous</a>');
    expect(second.body).toContain('51-100 of 200 accounts, page 2 of 4.');
    const last = await get('/?page=4');
    expect(rowsOf(last.body)).toEqual(rest.slice(147));
    expect(last.body).not.toContain('rel="next"');
  });

  it('finds an account by a part of its name, from the search form (a GET, no script needed)', async () => {
    const page = await get('/');
    expect(page.body).toContain('<form id="accounts-search" class="find" method="get" action="/" role="search">');
    expect(page.body).toContain('name="q"');
    const found = await get('/?q=HARBOR');
    expect(found.status).toBe(200);
    expect(rowsOf(found.body)).toEqual(['north-harbor-7']);
    expect(found.body).toContain('value="harbor"');
    const some = await get(`/?q=${encodeURIComponent(' shop-1 ')}`);
    // shop-100 .. shop-199: the one in an outage first.
    expect(rowsOf(some.body).slice(0, 2)).toEqual([PAUSED, OUTAGE]);
    expect(some.body).toContain('of 100 accounts whose name holds <code>shop-1</code>, page 1 of 2.');
    expect(some.body).toContain('<a rel="next" href="/?q=shop-1&amp;page=2">');
    const none = await get('/?q=zebra');
    expect(rowsOf(none.body)).toEqual([]);
    expect(none.body).toContain("No account's name holds <code>zebra</code>.");
    const api = JSON.parse((await get('/api/accounts?q=harbor')).body) as { matched: number; accounts: Array<{ account: string }> };
    expect([api.matched, api.accounts.map((a) => a.account)]).toEqual([1, ['north-harbor-7']]);
  });

  it('answers a page past the end with 404 saying how many pages there are, and a bad page number with 400', async () => {
    const past = await get('/?page=9');
    expect(past.status).toBe(404);
    expect(past.body).toContain('<h1>No page 9</h1>');
    expect(past.body).toContain('200 accounts make 4 pages of 50: <a href="/?page=4">the last page (4)</a>');
    const searched = await get('/?q=harbor&page=2');
    expect(searched.status).toBe(404);
    expect(searched.body).toContain('1 account whose name holds <code>harbor</code> makes 1 page of 50');
    for (const bad of ['0', 'two', '-1', '1.5']) {
      const r = await get(`/?page=${bad}`);
      expect([bad, r.status]).toEqual([bad, 400]);
      expect(r.body).toContain('page: a whole number from 1');
    }
    expect((await get('/api/accounts?page=9')).status).toBe(404);
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });
});
