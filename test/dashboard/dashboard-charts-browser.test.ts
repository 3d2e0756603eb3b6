import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flowSamplesKey } from '../../src/ops/flow-metrics.js';
import { launchChromium } from '../helpers/browser.js';
import { COLORS, pixels } from './chart-pixels.js';
import { startTestDashboard, type TestDashboard } from './dashboard-http.js';

/** Issue 23: charts that read at a glance, and no empty box where there is nothing to draw yet. */
describe('the overview charts, before anything was synced', () => {
  let t: TestDashboard;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestDashboard({
      budgets: { postPerMinute: 120, getPerMinute: 120, collectionPerHour: 300, headroom: 0 },
      lagLimitSeconds: 600,
    });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('says why a chart is missing instead of drawing an empty box', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${t.base}/`);
    // Sampled from now on (the dashboard samples while no worker does): no request since, said in each budget's unit.
    for (const [cls, budget] of [
      ['post', '120/min'],
      ['get', '120/min'],
      ['collection', '300/h'],
    ] as const) {
      const empty = page.locator(`#flow-budget-${cls} .budget .flow-empty`);
      await expect(empty.textContent()).resolves.toBe(`no requests yet in this span (budget ${budget})`);
      await expect(page.locator(`#flow-budget-${cls} .flow-sum`).textContent()).resolves.toMatch(
        new RegExp(`^0 requests in the last hour(, 0 in the last minute)? · budget ${budget.replace('/', '\\/')}$`),
      );
    }
    await expect(page.locator('#flow-orders .lag .flow-empty').textContent()).resolves.toContain('feed lag: no samples yet');

    // Two samples a minute apart, with no request between them: the budgets say so.
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    const sample = (at: number) => JSON.stringify({ t: at, lag: {}, requests: { post: 7, get: 7, collection: 7 } });
    await t.redis.zadd(flowSamplesKey(t.prefix), minute - 120_000, sample(minute - 120_000), minute - 60_000, sample(minute - 60_000));
    await page.reload();
    const emptyText = (cls: string) => page.locator(`#flow-budget-${cls} .budget .flow-empty`).textContent();
    await expect(emptyText('post')).resolves.toBe('no requests yet in this span (budget 120/min)');
    await expect(emptyText('collection')).resolves.toBe('no requests yet in this span (budget 300/h)');

    // The records chart is drawn all the same, with its axes, and nothing in its plot.
    await page.waitForSelector('#flow-orders .jobs canvas');
    expect(await pixels(page, '#flow-orders .jobs', COLORS.axis, 'x-axis')).toBeGreaterThan(100);
    expect(await pixels(page, '#flow-orders .jobs', COLORS.synced, 'plot')).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('draws a budget chart with its budget line labelled once requests were counted, and the table says the same', async () => {
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    const sample = (at: number, n: number, c: number) => JSON.stringify({ t: at, lag: {}, requests: { post: n, get: 0, collection: c } });
    const key = flowSamplesKey(t.prefix);
    await t.redis.del(key);
    await t.redis.zadd(key, minute - 180_000, sample(minute - 180_000, 0, 0), minute - 120_000, sample(minute - 120_000, 90, 20));
    await t.redis.zadd(key, minute - 60_000, sample(minute - 60_000, 150, 35));
    const page = await browser.newPage();
    await page.goto(`${t.base}/`);
    const post = '#flow-budget-post .budget';
    await page.waitForSelector(`${post} canvas`, { timeout: 20_000 });
    await expect(page.locator(`${post} .u-legend`).textContent()).resolves.toMatch(/requests.*budget \(120\/min\)/);
    expect(await pixels(page, post, COLORS.limit, 'plot'), 'the budget line and its label').toBeGreaterThan(50);
    expect(await pixels(page, post, COLORS.axis, 'y-axis')).toBeGreaterThan(100);
    // The collection budget is an hour's: its chart counts the hour's reads against 300/h, as the table does.
    const collection = '#flow-budget-collection .budget';
    await page.waitForSelector(`${collection} canvas`, { timeout: 20_000 });
    await expect(page.locator(`${collection} .u-legend`).textContent()).resolves.toMatch(/requests.*budget \(300\/h\)/);
    for (const [cls, n] of [
      ['post', '150'],
      ['collection', '35'],
    ] as const) {
      await expect(page.locator(`#flow-budget-${cls} .flow-sum`).textContent()).resolves.toMatch(
        new RegExp(`^${n} requests in the last hour`),
      );
      await expect(page.locator(`#budget tr[data-class="${cls}"] td.requests-hour`).textContent()).resolves.toBe(n);
    }
    await expect(page.locator('#budget tr[data-class="collection"] td').nth(1).textContent()).resolves.toBe('300/h');
    await page.close();
  });
});
