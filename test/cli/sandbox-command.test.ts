import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sandboxDefaults } from '../../src/sandbox/sandbox-options.js';
import { SANDBOX_STORE_MAPPING } from '../../src/sandbox/shopify/shopify-store.js';
import { baseEnv, collect, runCli, spawnCli } from './run-cli.js';
import { eventually, freePort } from './worker-process.js';

describe('sandbox command', () => {
  it('serves the demo account with the given credentials until SIGTERM, then exits 0', async () => {
    const port = await freePort();
    const child = spawnCli(['sandbox', '--port', String(port)], {
      ...baseEnv(),
      INVENTORY_API_KEY: 'k-1',
      INVENTORY_API_SECRET: 's-secret-1',
    });
    const done = collect(child);
    const url = `http://127.0.0.1:${port}/demo/api/facility`;
    const auth = `Basic ${Buffer.from('k-1:s-secret-1').toString('base64')}`;
    await eventually(
      async () => (await fetch(url, { headers: { authorization: auth } }).catch(() => undefined))?.status === 200,
      30_000,
      'the sandbox',
    );
    expect((await fetch(url)).status).toBe(401);
    // An account's budgets by default, told on every answer: 120 GETs a minute.
    expect((await fetch(url, { headers: { authorization: auth } })).headers.get('x-ratelimit-limit')).toBe('120');
    child.kill('SIGTERM');
    const r = await done;
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`inventory-sync sandbox listening on http://127.0.0.1:${port}: API http://127.0.0.1:${port}/demo/api/`);
    expect(r.stdout).toContain(`profile ${sandboxDefaults.profile})`);
    expect(r.stdout).toContain('INVENTORY_API_SECRET=<your INVENTORY_API_SECRET>');
    expect(r.stdout).not.toContain('s-secret-1');
  });

  it("takes --key, --secret and the data file's own account", async () => {
    const port = await freePort();
    const { mkdtemp, writeFile } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const file = `${await mkdtemp(`${tmpdir()}/isync-sb-`)}/data.json`;
    await writeFile(file, JSON.stringify({ account: 'acme', facilities: [], products: [] }));
    const child = spawnCli(['sandbox', '--port', String(port), '--data', file, '--key', 'cli-key', '--secret', 'cli-secret-9'], baseEnv());
    const done = collect(child);
    const url = `http://127.0.0.1:${port}/acme/api/facility`;
    const auth = `Basic ${Buffer.from('cli-key:cli-secret-9').toString('base64')}`;
    await eventually(
      async () => (await fetch(url, { headers: { authorization: auth } }).catch(() => undefined))?.status === 200,
      30_000,
      'the sandbox',
    );
    expect((await fetch(url, { headers: { authorization: `Basic ${Buffer.from('demo:demo').toString('base64')}` } })).status).toBe(401);
    child.kill('SIGTERM');
    const r = await done;
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('(account acme');
    expect(r.stdout).toContain('INVENTORY_API_SECRET=<the value of --secret>');
    expect(r.stdout).not.toContain('cli-secret-9');
  });

  it('answers as the real service is seen to with --profile observed, under one --total-per-minute budget', async () => {
    const port = await freePort();
    const child = spawnCli(['sandbox', '--port', String(port), '--profile', 'observed', '--total-per-minute', '3'], baseEnv());
    const done = collect(child);
    const base = `http://127.0.0.1:${port}`;
    // Health is an admin request: it spends no budget.
    await eventually(async () => (await fetch(`${base}/_admin/health`).catch(() => undefined))?.status === 200, 30_000, 'the sandbox');
    expect(await (await fetch(`${base}/_admin/health`)).json()).toMatchObject({ profile: 'observed' });
    const headers = { authorization: `Basic ${Buffer.from('demo:demo').toString('base64')}`, 'content-type': 'application/json' };
    const order = { orderId: 'CLI-1', orderTypeId: 'SALES_ORDER', originFacilityUrl: '/demo/api/facility/10000', orderItemList: [] };
    const created = await fetch(`${base}/demo/api/order`, { method: 'POST', headers, body: JSON.stringify(order) });
    expect(((await created.json()) as { shipmentUrlList: unknown }).shipmentUrlList).toBeNull();
    // 3 a minute: of 8 quick requests, whichever window they fall in, some are refused.
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await fetch(`${base}/demo/api/order/CLI-1`, { headers })).status);
    expect(statuses).toContain(429);
    child.kill('SIGTERM');
    const r = await done;
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('profile observed)');
    expect(r.stdout).toContain('INVENTORY_REQUESTS_PER_MINUTE=3');
  });

  it('sends X-RateLimit-* on 429s only with --rate-headers on-429', async () => {
    const port = await freePort();
    const child = spawnCli(['sandbox', '--port', String(port), '--total-per-minute', '2', '--rate-headers', 'on-429'], baseEnv());
    const done = collect(child);
    const base = `http://127.0.0.1:${port}`;
    await eventually(async () => (await fetch(`${base}/_admin/health`).catch(() => undefined))?.status === 200, 30_000, 'the sandbox');
    const headers = { authorization: `Basic ${Buffer.from('demo:demo').toString('base64')}` };
    const answers: Response[] = [];
    for (let i = 0; i < 5; i++) answers.push(await fetch(`${base}/demo/api/product/10003`, { headers }));
    const ok = answers.find((a) => a.status === 200)!;
    const over = answers.find((a) => a.status === 429)!;
    expect(ok.headers.get('x-ratelimit-remaining')).toBeNull();
    expect(ok.headers.get('x-ratelimit-limit')).toBeNull();
    expect(over.headers.get('x-ratelimit-limit')).toBe('2');
    expect(over.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);
    child.kill('SIGTERM');
    expect((await done).code).toBe(0);
  });

  it('sends no X-RateLimit-* with --no-budgets', async () => {
    const port = await freePort();
    const child = spawnCli(['sandbox', '--port', String(port), '--no-budgets'], baseEnv());
    const done = collect(child);
    const base = `http://127.0.0.1:${port}`;
    await eventually(async () => (await fetch(`${base}/_admin/health`).catch(() => undefined))?.status === 200, 30_000, 'the sandbox');
    const answer = await fetch(`${base}/demo/api/product/10003`, {
      headers: { authorization: `Basic ${Buffer.from('demo:demo').toString('base64')}` },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-ratelimit-limit')).toBeNull();
    child.kill('SIGTERM');
    expect((await done).code).toBe(0);
  });

  it('with --store starts a sandbox Shopify store beside it, with orders, and prints the settings that make it the source', async () => {
    const [port, storePort] = [await freePort(), await freePort()];
    const child = spawnCli(['sandbox', '--port', String(port), '--store', '--store-port', String(storePort)], baseEnv());
    let out = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    const done = collect(child);
    await eventually(async () => out.includes('Stop with Ctrl-C.'), 30_000, 'the sandbox and its store');
    const settings = Object.fromEntries(
      [...out.matchAll(/\b(SHOPIFY_STORE_URL|SHOPIFY_ACCESS_TOKEN|INGEST_HMAC_SECRET|MAPPING_FILE)=(\S+)/g)].map((m) => [m[1]!, m[2]!]),
    );
    expect(settings).toEqual({
      SHOPIFY_STORE_URL: `http://127.0.0.1:${storePort}`,
      SHOPIFY_ACCESS_TOKEN: 'shpat_sandbox0000000000000000000000',
      INGEST_HMAC_SECRET: 'sandbox-app-secret',
      MAPPING_FILE: expect.stringMatching(/mapping\.csv$/),
    });
    expect(readFileSync(settings.MAPPING_FILE!, 'utf8').trim()).toBe(SANDBOX_STORE_MAPPING);
    const ask = (token: string) =>
      fetch(`${settings.SHOPIFY_STORE_URL}/admin/api/2025-10/graphql.json`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-shopify-access-token': token },
        body: JSON.stringify({ query: '{ orders(first: 50) { nodes { id } } }' }),
      });
    const orders = (await (await ask(settings.SHOPIFY_ACCESS_TOKEN!)).json()) as { data: { orders: { nodes: unknown[] } } };
    expect(orders.data.orders.nodes.length).toBeGreaterThanOrEqual(8);
    expect((await ask('shpat_wrong')).status).toBe(401);
    child.kill('SIGTERM');
    expect((await done).code).toBe(0);
    // Its mapping file goes with it.
    expect(existsSync(settings.MAPPING_FILE!)).toBe(false);
  });

  it('refuses an unknown profile with exit 2, naming the profiles', async () => {
    const r = await runCli(['sandbox', '--port', '0', '--profile', 'strict'], baseEnv());
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown sandbox profile "strict": use observed or spec');
  });
});
