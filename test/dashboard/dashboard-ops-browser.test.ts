import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxData } from '../../src/sandbox/sandbox-data-schema.js';
import { launchChromium } from '../helpers/browser.js';
import { COLORS, pixels } from './chart-pixels.js';
import { orderRecord } from '../helpers/order-records.js';
import { runCli, spawnCli } from '../cli/run-cli.js';
import { startStack, type Stack } from '../cli/stack.js';
import { eventually, freePort, startWorkerProcess, type WorkerProcess } from '../cli/worker-process.js';

const order = (id: string, productId = 'MUG-BLUE') =>
  orderRecord(id, [{ productId, quantity: 1, unitPrice: 12.5, location: 'Main Warehouse / A-01' }]);

/** A number the chart script wrote on an element, read in the page. */
const attr = (page: Page, selector: string, name: string) => page.locator(selector).getAttribute(name).then(Number);

describe('dashboard operator pages in a browser', () => {
  let stack: Stack;
  let worker: WorkerProcess;
  let dashboard: ReturnType<typeof spawnCli>;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    stack = await startStack({ orders: [order('OB-1')] }, 'ops-browser');
    // WAIT_FOR_REFERENCE_HOURS=0: a record of a product the service lacks fails at once (no wait: docs/runbooks/bad-records.md).
    const env = { ...stack.env, ORDER_POLL_SECONDS: '1', LOG_LEVEL: 'info', WAIT_FOR_REFERENCE_HOURS: '0' };
    worker = startWorkerProcess(env);
    const port = await freePort();
    dashboard = spawnCli(['dashboard', '--no-auth', '--port', String(port)], env);
    base = `http://127.0.0.1:${port}`;
    browser = await launchChromium();
    await eventually(
      async () =>
        stack.sandbox.admin
          .state()
          .orders.some((o: { orderId: string; statusId: string }) => o.orderId === 'OB-1' && o.statusId === 'ORDER_COMPLETED'),
      60_000,
      'OB-1 synced',
    );
    await eventually(async () => (await fetch(`${base}/`).catch(() => undefined))?.status === 200, 30_000, 'the dashboard');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    dashboard?.kill('SIGTERM');
    await worker?.stop();
    await stack?.close();
  });

  it('draws charts that move by themselves while records sync, and shows a burst of failures in red', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${base}/`);
    // uPlot draws on a canvas: what a chart shows is read from its pixels (failed bars are its only red).
    const chart = '#flow-orders .jobs';
    await page.waitForSelector(`${chart}[data-synced] canvas`, { timeout: 20_000 });
    const before = await attr(page, chart, 'data-synced');
    expect(before).toBeGreaterThanOrEqual(1);
    expect(await pixels(page, chart, COLORS.synced, 'plot')).toBeGreaterThan(0);
    expect(await pixels(page, chart, COLORS.failed)).toBe(0);

    // More records arrive, two of them bad; the page is not reloaded.
    stack.feed.append('orders', [order('OB-2'), order('OB-3'), order('OB-4'), order('OB-5', 'NO-SUCH'), order('OB-6', 'NO-SUCH-EITHER')]);
    await expect.poll(() => attr(page, chart, 'data-synced'), { timeout: 40_000, interval: 500 }).toBe(before + 3);
    await expect.poll(() => attr(page, chart, 'data-failed'), { timeout: 20_000, interval: 500 }).toBe(2);
    await expect.poll(() => pixels(page, chart, COLORS.failed, 'plot'), { timeout: 10_000, interval: 500 }).toBeGreaterThan(0);
    await expect(page.locator('#flow-orders .flow-sum').getAttribute('class')).resolves.toContain('bad');
    // "failed now" as the streams table and `status` count it; the bars count the failures as they happened.
    await expect(page.locator('#flow-orders .flow-sum').textContent()).resolves.toMatch(
      /4 synced, 2 failed now; 2 failures in the last 1 h \(2 in the last 10 min\)/,
    );
    // Lag and budget are drawn too (the dashboard samples them while open).
    await page.waitForSelector('#flow-orders .lag:not([data-last=""]) canvas', { timeout: 20_000 });
    expect(await pixels(page, '#flow-orders .lag', COLORS.lag, 'plot')).toBeGreaterThan(0);
    // A budget box is never empty: its chart, or why there is none.
    await page.waitForSelector('#flow-budget-post .budget canvas, #flow-budget-post .budget .flow-empty', { timeout: 20_000 });
    expect(errors).toEqual([]);
    await page.close();
  }, 90_000);

  it('draws each chart with a time axis, a value axis with its unit, a legend, and the alert line labelled', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/`);
    const jobs = '#flow-orders .jobs';
    const lag = '#flow-orders .lag';
    await page.waitForSelector(`${jobs} canvas`, { timeout: 20_000 });
    await page.waitForSelector(`${lag} canvas`, { timeout: 20_000 });
    await expect(page.locator(`${jobs} .u-title`).textContent()).resolves.toBe('Records a minute');
    await expect(page.locator(`${jobs} .u-legend`).textContent()).resolves.toMatch(/synced.*failed for good/);
    await expect(page.locator(`${lag} .u-title`).textContent()).resolves.toBe('Feed behind');
    // The worker alerts past ALERT_LAG_SECONDS (600 by default): the dashed line says so, in the legend and on itself.
    await expect(page.locator(`${lag} .u-legend`).textContent()).resolves.toMatch(/behind.*alert limit \(10 min\)/);
    for (const holder of [jobs, lag]) {
      // Tick labels and axis titles are drawn in the axis colour below the plot (time) and left of it (values).
      expect(await pixels(page, holder, COLORS.axis, 'x-axis'), `${holder} time axis`).toBeGreaterThan(100);
      expect(await pixels(page, holder, COLORS.axis, 'y-axis'), `${holder} value axis`).toBeGreaterThan(100);
    }
    expect(await pixels(page, lag, COLORS.limit, 'plot'), 'the alert line and its label').toBeGreaterThan(50);
    await page.close();
  }, 60_000);

  it('finds a record from the search box and tells its story', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/`);
    await page.fill('#find-key', 'OB-5');
    await page.click('#find button[type=submit]');
    expect(new URL(page.url()).pathname).toBe('/find');
    const row = page.locator('#find-jobs tr[data-job]');
    await expect(row.count()).resolves.toBe(1);
    await expect(row.locator('td.state').textContent()).resolves.toBe('failed');
    await expect(row.textContent()).resolves.toContain('[BAD_RECORD] record OB-5: lines.0.productId');

    await page.fill('#find-key', 'OB-2');
    await page.click('#find button[type=submit]');
    await expect(page.locator('#find-jobs td.state').textContent()).resolves.toBe('completed');
    await expect(page.locator('#find-entities').textContent()).resolves.toContain('/demo/api/order/OB-2');
    await expect(page.locator('#find-entities a[href$="/demo/api/order/OB-2"]').getAttribute('href')).resolves.toBe(
      `${stack.sandbox.url}/demo/api/order/OB-2`,
    );
    await page.locator('#find-jobs a').first().click();
    await expect(page.textContent('#state')).resolves.toBe('completed');

    await page.goto(`${base}/find?key=OB-404`);
    await expect(page.textContent('#find-none')).resolves.toContain('Nothing known of OB-404');
    await page.close();
  }, 60_000);

  it('shows the last reconcile report: none, then a clean one, then the drift it found', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/`);
    await expect(page.textContent('#reconcile-summary')).resolves.toContain('Reconcile has not run yet');
    expect((await runCli(['reconcile'], stack.env)).code).toBe(0);
    await page.reload();
    await expect(page.textContent('#reconcile-summary')).resolves.toContain('no drift');

    const state = stack.sandbox.admin.state();
    state.orders.find((o) => o.orderId === 'OB-3')!.statusId = 'ORDER_CREATED';
    stack.sandbox.admin.reset(JSON.parse(JSON.stringify(state)) as SandboxData);
    expect((await runCli(['reconcile'], stack.env)).code).toBe(1);
    await page.reload();
    await expect(page.textContent('#reconcile-summary')).resolves.toContain('1 drift');
    await page.click('#reconcile-summary a');
    const drift = page.locator('#drifts tr[data-key="OB-3"]');
    await expect(drift.locator('td.field').textContent()).resolves.toBe('statusId');
    await expect(drift.textContent()).resolves.toContain('ORDER_CREATED');
    await page.close();
  }, 60_000);
});
