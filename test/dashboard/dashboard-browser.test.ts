import { Queue } from 'bullmq';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxData } from '../../src/sandbox/sandbox-data-schema.js';
import { spawnCli } from '../cli/run-cli.js';
import { launchChromium } from '../helpers/browser.js';
import { expectDesignedLook, screenshot } from './look.js';
import { startStack, type Stack } from '../cli/stack.js';
import { eventually, freePort, startWorkerProcess, type WorkerProcess } from '../cli/worker-process.js';

const PASSWORD = 'open-sesame-7f3a';
const good = {
  orderId: 'B-1',
  origin: 'Main Warehouse',
  lines: [{ productId: 'MUG-BLUE', quantity: 1, unitPrice: 12.5, location: 'Main Warehouse / A-01' }],
};
const missingProduct = {
  orderId: 'B-2',
  origin: 'Main Warehouse',
  lines: [{ productId: 'MUG-YELLOW', quantity: 2, unitPrice: 14, location: 'Main Warehouse / A-01' }],
};
/** A record wrong in itself: no retry can help it, so none is offered. */
const noLines = { orderId: 'B-3', origin: 'Main Warehouse', lines: [] };

describe('dashboard in a browser', () => {
  let stack: Stack;
  let worker: WorkerProcess;
  let dashboard: ReturnType<typeof spawnCli>;
  let browser: Browser;
  let base: string;
  let queue: Queue;

  beforeAll(async () => {
    stack = await startStack({ orders: [good, missingProduct, noLines] }, 'browser');
    queue = new Queue('orders', { connection: stack.redis, prefix: stack.prefix });
    // WAIT_FOR_REFERENCE_HOURS=0: a record of a product the service lacks fails at once (no wait: docs/runbooks/bad-records.md).
    const env = {
      ...stack.env,
      WAIT_FOR_REFERENCE_HOURS: '0',
      DASHBOARD_USER: 'ops',
      DASHBOARD_PASSWORD: PASSWORD,
      LOG_LEVEL: 'info',
      ORDER_POLL_SECONDS: '1',
    };
    worker = startWorkerProcess({ ...env, WORKER_HTTP_PORT: '0' });
    const port = await freePort();
    dashboard = spawnCli(['dashboard', '--port', String(port)], env);
    base = `http://127.0.0.1:${port}`;
    browser = await launchChromium();
    await eventually(
      async () => (await queue.getFailedCount()) === 2 && (await queue.getCompletedCount()) === 1,
      60_000,
      'B-1 synced, B-2 and B-3 failed',
    );
    await eventually(async () => (await fetch(`${base}/login`).catch(() => undefined))?.status === 200, 30_000, 'the dashboard');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    dashboard?.kill('SIGTERM');
    await worker?.stop();
    await queue?.close();
    await stack?.close();
  });

  it('logs in, shows the failed job and its reason, retries it after the fix, and shows it completed', async () => {
    const page = await browser.newPage();
    // The Content-Security-Policy must not break a page: every refusal shows as a console error. bull-board's
    // link to Google Fonts is refused on purpose (no request leaves for another site); its fallback font serves.
    const refusals: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy/i.test(m.text()) && !m.text().includes('fonts.googleapis.com'))
        refusals.push(m.text());
    });

    // Signed out, every page leads to the login form; a wrong password is refused.
    await page.goto(`${base}/`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.fill('#user', 'ops');
    await page.fill('#password', 'wrong');
    await page.click('button[type=submit]');
    await expect(page.textContent('[role=alert]')).resolves.toContain('Wrong user or password');
    await page.fill('#user', 'ops');
    await page.fill('#password', PASSWORD);
    await page.click('button[type=submit]');
    expect(new URL(page.url()).pathname).toBe('/');

    // The overview groups the failure by reason, with a retry where one can help (the product may be added), and
    // what helps instead where none can (a record without lines stays so).
    const group = page.locator('#failed-groups tr', { hasText: 'MUG-YELLOW' });
    await expect(group.locator('td.reason').textContent()).resolves.toMatch(/lines\.0\.productId: "MUG-YELLOW" is an unknown product/);
    await expect(group.locator('button').textContent()).resolves.toBe('Retry this group (1)');
    const wrong = page.locator('#failed-groups tr', { hasText: 'lines: must have at least one line' });
    await expect(wrong.locator('button').count()).resolves.toBe(0);
    await expect(wrong.locator('.no-retry').textContent()).resolves.toBe('fix at the source: a corrected record is a new job');
    await expect(page.locator('#streams tr', { hasText: 'orders' }).textContent()).resolves.toMatch(/orders/);
    // The look, as the browser lays it out, and as a person sees it (test-results/screenshots/).
    await page.setViewportSize({ width: 1360, height: 900 });
    await page.waitForSelector('#flow-orders .jobs canvas');
    // The budgets' charts and their table say the same (the syncs above made requests): one figure, in one unit each.
    for (const cls of ['post', 'get', 'collection']) {
      const chart = Number(/^(\d+) requests in the last hour/.exec((await page.textContent(`#flow-budget-${cls} .flow-sum`)) ?? '')?.[1]);
      expect(await page.textContent(`#budget tr[data-class="${cls}"] td.requests-hour`), cls).toBe(String(chart));
    }
    expect(Number(await page.textContent('#budget tr[data-class="post"] td.requests-hour'))).toBeGreaterThan(0);
    await expectDesignedLook(page, { primaryButton: true, badge: 'ok' });
    await screenshot(page, 'overview');
    await screenshot(page, 'failure-groups', page.locator('#failed-groups'));

    // The find page tells the record's story, the job page why and what to do.
    await page.fill('#find-key', 'B-2');
    await page.click('#find button[type=submit]');
    await expect(page.locator('#find-jobs td.state').textContent()).resolves.toBe('failed');
    await expectDesignedLook(page, { badge: 'bad' });
    await screenshot(page, 'find');
    await page.goto(`${base}/`);
    await page.locator('#failed-groups tr', { hasText: 'MUG-YELLOW' }).locator('a').first().click();
    await expect(page.textContent('#state')).resolves.toBe('failed');
    await expect(page.textContent('#reason')).resolves.toContain(
      '[BAD_RECORD] record B-2: lines.0.productId: "MUG-YELLOW" is an unknown product',
    );
    await expect(page.textContent('#hint')).resolves.toMatch(/What to do:/);
    const jobUrl = page.url();

    // The fix: the product now exists in the service.
    const state = stack.sandbox.admin.state();
    const yellow = {
      productId: 'MUG-YELLOW',
      productUrl: '/demo/api/product/20099',
      internalName: 'Yellow mug',
      statusId: 'PRODUCT_ACTIVE',
      productAssocList: [],
    };
    // The same JSON a data file holds (docs/sandbox.md): the state as dumped, plus the product.
    const data = JSON.parse(JSON.stringify({ ...state, products: [...state.products, yellow] })) as SandboxData;
    stack.sandbox.admin.reset(data);

    // Retry the group from the overview, then watch the job complete.
    await page.goto(`${base}/`);
    await page.locator('#failed-groups tr', { hasText: 'MUG-YELLOW' }).locator('button').click();
    await expect(page.textContent('[role=status]')).resolves.toContain('Retried 1 orders job failed with [BAD_RECORD].');
    await screenshot(page, 'overview-after-retry');
    await page.goto(jobUrl);
    for (let i = 0; i < 60 && (await page.textContent('#state')) !== 'completed'; i++) {
      await page.waitForTimeout(500);
      await page.reload();
    }
    await expect(page.textContent('#state')).resolves.toBe('completed');
    await expect(page.textContent('#result')).resolves.toContain('order B-2');
    expect(stack.sandbox.admin.state().orders.find((o: { orderId: string }) => o.orderId === 'B-2')?.statusId).toBe('ORDER_COMPLETED');
    await page.goto(`${base}/`);
    await expect(page.locator('#failed-groups tr', { hasText: 'MUG-YELLOW' }).count()).resolves.toBe(0);

    // bull-board shows the queues behind the same login, linked both ways: the header's Queues, and back from its menu.
    await page.click('header >> text=Queues');
    await page.waitForSelector('text=stock-counts', { timeout: 20_000 });
    await page.locator('header button').last().click();
    const back = page.getByRole('menuitem', { name: '← Overview' }).or(page.locator('a', { hasText: '← Overview' }));
    await expect(back.first().getAttribute('href')).resolves.toBe('/');
    await back.first().click();
    await page.waitForURL(`${base}/`);
    await expect(page.locator('#streams').count()).resolves.toBe(1);
    expect(refusals).toEqual([]);
    await page.close();
  }, 120_000);
});
