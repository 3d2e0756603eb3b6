import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountPrefix } from '../../config/accounts.js';
import type { DashboardAccount } from '../../src/dashboard/accounts-routes.js';
import { redisKeys } from '../../src/redis/connection.js';
import { launchChromium } from '../helpers/browser.js';
import { deletePrefix, uniquePrefix } from '../helpers/redis.js';
import { startTestDashboard, type TestDashboard } from './dashboard-http.js';

/** Issue 56: a person finds an account among 120 by typing a part of its name, and pages through the rest. */
const names = [...Array.from({ length: 119 }, (_, i) => `shop-${String(i + 1).padStart(3, '0')}`), 'north-harbor-7'];
const PAUSED = 'shop-090';

describe('the all-accounts page in a browser', () => {
  let t: TestDashboard;
  let browser: Browser;
  let queuePrefix: string;

  beforeAll(async () => {
    queuePrefix = uniquePrefix('dash-page-browser');
    const accounts: DashboardAccount[] = names.map((name) => ({ name, prefix: accountPrefix(queuePrefix, name) }));
    t = await startTestDashboard({ accounts: { current: () => accounts } });
    await t.redis.hset(redisKeys(accountPrefix(queuePrefix, PAUSED)).breaker('orders'), {
      state: 'open',
      since: Date.now(),
      reason: '[UNAUTHORIZED] key revoked',
    });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    if (t) await deletePrefix(t.redis, accountPrefix(queuePrefix, PAUSED));
    await t?.close();
  });

  const rows = (page: Page) =>
    page.locator('#accounts-overview tr[data-account]').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-account')));

  it('searches by a part of a name, and goes to page 2 and back', async () => {
    const page = await browser.newPage();
    await page.goto(`${t.base}/`);
    const first = await rows(page);
    expect(first).toHaveLength(50);
    // The paused account first, then the rest by name.
    expect(first.slice(0, 3)).toEqual([PAUSED, 'north-harbor-7', 'shop-001']);

    await page.fill('#accounts-q', 'Harbor');
    await page.click('#accounts-search button[type=submit]');
    await page.waitForURL((u) => u.searchParams.get('q') === 'Harbor');
    await expect(rows(page)).resolves.toEqual(['north-harbor-7']);
    await expect(page.inputValue('#accounts-q')).resolves.toBe('harbor');
    // The row leads to the account's own pages.
    await page.click('#accounts-overview a[href="/a/north-harbor-7/"]');
    expect(new URL(page.url()).pathname).toBe('/a/north-harbor-7/');
    await expect(page.textContent('#accounts [aria-current="page"]')).resolves.toBe('north-harbor-7');

    await page.click('#accounts >> text=All accounts');
    await page.click('.pager >> text=2');
    expect(new URL(page.url()).search).toBe('?page=2');
    const second = await rows(page);
    expect(second[0]).toBe('shop-049');
    expect(second).toHaveLength(50);
    await expect(page.textContent('#accounts-showing')).resolves.toBe('51-100 of 120 accounts, page 2 of 3.');
    await page.click('.pager >> text=← previous');
    await expect(rows(page)).resolves.toEqual(first);
    await page.close();
  }, 60_000);
});
