import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { programKinds } from '../../jobs/kinds.js';
import { startDashboard, type Dashboard } from '../../src/dashboard/dashboard-server.js';
import { readWaitGroups } from '../../src/queue/wait/wait-store.js';
import { launchChromium } from '../helpers/browser.js';
import { orderRecord, orderState } from '../helpers/order-records.js';
import { addProduct } from '../helpers/sandbox-products.js';
import { jobOf, testWorld, type TestWorld } from '../helpers/test-world.js';
import { until } from '../kit/until.js';

const PASSWORD = 'open-sesame-7f3a';
const line = (productId: string) => ({ productId, quantity: 1, unitPrice: 9, location: 'Main Warehouse / A-01' });
const synced = async (world: TestWorld, id: string) => (await jobOf(world, 'orders', id)).getState().then((s) => s === 'completed');

/** Issue 57: the account's page shows the orders that wait for a product the service lacks, and not once it exists. */
describe("the waiting groups on the account's page in a browser", () => {
  let world: TestWorld;
  let dashboard: Dashboard;
  let browser: Browser;

  beforeAll(async () => {
    world = await testWorld('wait-browser', { streams: ['orders'], workers: false });
    // The worker's look at the catalog every second while anything waits (WAIT_LOOK_SECONDS, 50 by default).
    await world.startWorkers({ waits: { lookMs: 1_000, boundMs: 3_600_000 } });
    await world.add('orders', [orderRecord('WB-1', [line('MUG-ORANGE')]), orderRecord('WB-2', [line('MUG-BLUE'), line('MUG-ORANGE')])]);
    await until(async () => (await readWaitGroups(world.redis, world.keys))[0]?.count === 2, 20_000, {
      what: 'both orders wait',
      everyMs: 100,
    });
    const auth = { user: 'ops', password: PASSWORD };
    dashboard = await startDashboard({ kinds: programKinds, host: '127.0.0.1', port: 0, auth, redis: world.redis, prefix: world.prefix });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await dashboard?.close();
    await world?.close();
  });

  it('shows the group after login, and no group once the product exists and the orders synced', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${dashboard.url}/`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.fill('#user', 'ops');
    await page.fill('#password', PASSWORD);
    await page.click('button[type=submit]');
    expect(new URL(page.url()).pathname).toBe('/');

    await expect(page.locator('h2', { hasText: 'Waiting for what the service lacks' }).count()).resolves.toBe(1);
    const group = page.locator('#wait-groups tr[data-wait="orders:product:MUG-ORANGE"]');
    const cells = await group.locator('td').allTextContents();
    expect(cells.slice(0, 3)).toEqual(['orders', 'product MUG-ORANGE', '2']);
    // since (UTC): when the first of them began to wait, as the page writes a time.
    expect(cells[3]).toMatch(/\d\d:\d\d/);
    await expect(page.locator('#wait-groups tr[data-wait]').count()).resolves.toBe(1);
    // The page is a true picture: nothing of these orders reached the service while they wait.
    for (const id of ['WB-1', 'WB-2']) expect(orderState(world.sandbox.admin.state(), id).orders).toHaveLength(0);

    addProduct(world.sandbox, 'MUG-ORANGE');
    await until(async () => (await synced(world, 'WB-1')) && (await synced(world, 'WB-2')), 20_000, {
      what: 'the waiting orders synced',
      everyMs: 100,
    });
    await page.reload();
    expect(new URL(page.url()).pathname).toBe('/');
    await expect(page.locator('#wait-groups').count()).resolves.toBe(0);
    await expect(page.getByText('Waiting for what the service lacks').count()).resolves.toBe(0);
    for (const id of ['WB-1', 'WB-2']) expect(orderState(world.sandbox.admin.state(), id).orders).toHaveLength(1);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});
