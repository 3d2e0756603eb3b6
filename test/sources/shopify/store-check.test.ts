import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cliInProcess } from '../../cli/cli-in-process.js';
import { placeAt } from './store-kit.js';
import { storeWorld, TOPICS, type StoreWorld } from './store-world.js';

let w: StoreWorld;
beforeEach(async () => {
  w = await storeWorld('store-check');
});
afterEach(async () => {
  await w.close();
});

const PUBLIC = 'https://hooks.example.com';

describe('check with a store as the source', () => {
  it('reads the store: its shop, scopes, locations and their mapping, SKUs the service lacks, and the missing webhooks', async () => {
    w.store.admin.orders.place({ lines: [{ sku: 'NO-SUCH-SKU', quantity: 1, price: '1' }], at: Date.now() - 60_000 });
    w.store.admin.subscribe('orders/create', 'https://old.example.com/hooks');
    const r = await cliInProcess(['check'], { ...w.env, INGEST_PUBLIC_URL: PUBLIC });
    expect(r.stdout).toContain(`Store: ${w.store.url}/admin/api/2025-10/graphql.json`);
    expect(r.stdout).toContain('shop: Sandbox Store (sandbox-store.myshopify.com, America/New_York)');
    expect(r.stdout).toContain('scopes: enough to read orders');
    expect(r.stdout).toContain('location 48752903 (Main Warehouse): shopify:48752903 / shipping -> Main Warehouse / A-01');
    expect(r.stdout).toContain('SKU NO-SUCH-SKU: no such product in the service');
    expect(r.stdout).toContain(`webhook orders/create: points elsewhere (https://old.example.com/hooks), not at ${PUBLIC}/ingest/orders`);
    expect(r.stdout).toContain('webhook refunds/create: missing');
    expect(r.code).toBe(1);
  });

  it('--register-webhooks creates the missing subscriptions at INGEST_PUBLIC_URL, and check is then satisfied with them', async () => {
    placeAt(w.store, Date.now() - 60_000);
    const r = await cliInProcess(['check', '--register-webhooks'], { ...w.env, INGEST_PUBLIC_URL: PUBLIC });
    expect(r.stdout).toContain('registered refunds/create: created');
    expect(w.store.admin.subscriptions.map((s) => [s.topic, s.uri]).sort()).toEqual(
      TOPICS.map((t) => [t, `${PUBLIC}/ingest/orders`]).sort(),
    );
    const again = await cliInProcess(['check'], { ...w.env, INGEST_PUBLIC_URL: PUBLIC });
    for (const t of TOPICS) expect(again.stdout).toContain(`webhook ${t}: subscribed at ${PUBLIC}/ingest/orders`);
    expect(again.code).toBe(0);
  });

  it('--register-webhooks without INGEST_PUBLIC_URL is a usage error naming it', async () => {
    const r = await cliInProcess(['check', '--register-webhooks'], w.env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('INGEST_PUBLIC_URL is required');
  });

  it('a revoked token: exit 3, one line saying the store refused it and what to do', async () => {
    w.store.admin.revokeToken();
    const r = await cliInProcess(['check'], w.env);
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/refusing: .*refused the access token \(HTTP 401\)/);
    expect(r.stdout).toContain('Check SHOPIFY_ACCESS_TOKEN');
    expect(r.stdout + r.stderr).not.toContain(w.store.token);
  });
});

describe('import orders --from shopify', () => {
  it('queues the orders updated since the day, without moving the pull cursor; again, nothing new', async () => {
    placeAt(w.store, Date.parse('2025-03-01T12:00:00Z'));
    placeAt(w.store, Date.parse('2025-05-01T12:00:00Z'));
    const r = await cliInProcess(['import', 'orders', '--from', 'shopify', '--since', '2025-04-01'], w.env);
    expect(r.stdout).toContain('orders from the store, updated since 2025-04-01: 1 queued, 0 already queued, 0 invalid');
    expect(r.stdout).toContain('read_all_orders');
    expect(r.code).toBe(0);
    expect(await w.redis.get(`${w.prefix}:cursor:orders`)).toBeNull();
    const again = await cliInProcess(['import', 'orders', '--from', 'shopify', '--since', '2025-04-01'], w.env);
    expect(again.stdout).toContain('0 queued, 1 already queued');
  });

  it('the go-live floor applies when it is later than --since', async () => {
    placeAt(w.store, Date.parse('2025-05-01T12:00:00Z'));
    const r = await cliInProcess(['import', 'orders', '--from', 'shopify', '--since', '2025-01-01'], {
      ...w.env,
      SYNC_ORDERS_SINCE: '2025-06-01',
    });
    expect(r.stdout).toContain('updated since 2025-06-01: 0 queued');
  });
});
