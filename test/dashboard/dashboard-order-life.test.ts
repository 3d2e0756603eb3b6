import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shippedLife } from '../helpers/order-lives.js';
import { testWorld, type TestWorld } from '../helpers/test-world.js';
import { raw, startTestDashboard, type TestDashboard } from './dashboard-http.js';

/** Issue 34: the dashboard's record page shows an order's life; a snapshot's job page leads to it. */
describe("dashboard, an order's life", () => {
  let world: TestWorld;
  let t: TestDashboard;

  beforeAll(async () => {
    world = await testWorld('dash-life', { streams: ['orders'] });
    for (const r of shippedLife('DL-1')) {
      await world.add('orders', [r]);
      await world.idle();
    }
    t = await startTestDashboard({ prefix: world.prefix, kinds: world.kinds });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await world?.close();
  });

  it("shows the order's snapshots in order, the older one skipped, and each fulfillment's shipment", async () => {
    const page = await raw(`${t.base}/find?key=DL-1`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('Snapshots of DL-1, in order (by updatedAt)');
    const rows = [...page.body.matchAll(/<tr><td>(2026-[^<]+)<\/td><td>([a-z]+)<\/td><td>([^<]+)<\/td>/g)].map((m) => m.slice(1));
    expect(rows).toEqual([
      ['2026-11-20T10:00:00', 'open', 'synced'],
      ['2026-11-20T10:30:00', 'open', 'skipped (older)'],
      ['2026-11-20T11:00:00', 'open', 'synced'],
      ['2026-11-20T12:00:00', 'fulfilled', 'synced'],
      ['2026-11-23T10:05:00', 'fulfilled', 'synced'],
    ]);
    expect(page.body).toContain('Shipments of DL-1 (one per fulfillment)');
    expect(page.body).toMatch(/<td>DL-1-F2<\/td><td>\/demo\/api\/shipment\/[^<]+<\/td><td>yes<\/td>/);
    expect(page.body).toContain('completed in the service (ORDER_COMPLETED)');
    expect(page.body).toContain('returns restocked DL-1-R1');
  });

  it("links a snapshot's job page to the order's page", async () => {
    const job = (await world.jobs('orders'))[0]!;
    const page = await raw(`${t.base}/jobs/${encodeURIComponent(job.id!)}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<a id="job-key" href="/find?key=DL-1">DL-1</a>');
  });
});
