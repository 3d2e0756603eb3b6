import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountPrefix } from '../../config/accounts.js';
import { baseEnv, spawnCli } from '../cli/run-cli.js';
import { seedJobs } from '../cli/seed-jobs.js';
import { eventually, freePort } from '../cli/worker-process.js';
import { launchChromium } from '../helpers/browser.js';
import { expectDesignedLook, screenshot } from './look.js';
import { connect, deletePrefix, redisUrl, uniquePrefix } from '../helpers/redis.js';

/** Issue 36: with ACCOUNTS_FILE, a person signs in once and moves between the accounts' pages in a browser. */
const PASSWORD = 'open-sesame-36-accounts';

describe('the dashboard of every account, in a browser', () => {
  let redis: Redis;
  let prefixes: string[];
  let dashboard: ReturnType<typeof spawnCli>;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    redis = connect();
    const queuePrefix = uniquePrefix('dash-acc-browser');
    const file = join(mkdtempSync(join(tmpdir(), 'isync-accounts-')), 'accounts.json');
    writeFileSync(file, JSON.stringify({ accounts: { acme: {}, beta: {} } }));
    prefixes = [queuePrefix, accountPrefix(queuePrefix, 'acme'), accountPrefix(queuePrefix, 'beta')];
    await seedJobs(redis, prefixes[1]!);
    const port = await freePort();
    const env = { ...baseEnv(), REDIS_URL: redisUrl(), QUEUE_PREFIX: queuePrefix, ACCOUNTS_FILE: file, DASHBOARD_USER: 'ops' };
    dashboard = spawnCli(['dashboard', '--port', String(port)], { ...env, DASHBOARD_PASSWORD: PASSWORD });
    base = `http://127.0.0.1:${port}`;
    browser = await launchChromium();
    await eventually(async () => (await fetch(`${base}/login`).catch(() => undefined))?.status === 200, 30_000, 'the dashboard');
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    dashboard?.kill('SIGTERM');
    for (const p of prefixes ?? []) await deletePrefix(redis, p);
    redis?.disconnect();
  });

  it("signs in once, picks an account, and its overview's charts, job page and queues load under its path", async () => {
    const page = await browser.newPage();
    const refusals: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy/i.test(m.text()) && !m.text().includes('fonts.googleapis.com'))
        refusals.push(m.text());
    });
    await page.goto(`${base}/a/acme/`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.fill('#user', 'ops');
    await page.fill('#password', PASSWORD);
    await page.click('button[type=submit]');
    // Back to the page asked for: acme's overview.
    expect(new URL(page.url()).pathname).toBe('/a/acme/');

    // The picker leads to the all-accounts page, and from there to each account.
    await page.click('#accounts >> text=All accounts');
    expect(new URL(page.url()).pathname).toBe('/');
    await expect(page.locator('#accounts-overview tr[data-account]').count()).resolves.toBe(2);
    // Each account per stream: what it completed, waits, runs and failed, and how far behind its feed is.
    const acme = page.locator('#accounts-overview tr[data-account="acme"] td[data-stream="orders"]');
    await expect(acme.textContent()).resolves.toMatch(/1 completed \(1 in the last hour\)0 waiting · 0 active · 1 failedfeed behind: /);
    await page.setViewportSize({ width: 1360, height: 900 });
    await expectDesignedLook(page);
    await screenshot(page, 'accounts');
    await page.click('#accounts-overview a[href="/a/acme/"]');
    expect(new URL(page.url()).pathname).toBe('/a/acme/');

    // The charts read acme's own flow (the browser script follows the page's path).
    await eventually(async () => /^\d\d:\d\d/.test((await page.textContent('#flow-updated')) ?? ''), 20_000, 'the charts drawn');

    // A failed job's page, from the failure groups, and its way back.
    await page.locator('#failed-groups a').first().click();
    expect(new URL(page.url()).pathname).toMatch(/^\/a\/acme\/jobs\//);
    await expect(page.textContent('#state')).resolves.toBe('failed');
    await page.click('header >> text=Queues');
    expect(new URL(page.url()).pathname).toBe('/a/acme/queues');
    await page.waitForSelector('text=stock-counts', { timeout: 20_000 });
    expect(refusals).toEqual([]);
    await page.close();
  }, 90_000);
});
