import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Catalog } from '../../src/catalog/catalog.js';
import { readStockOnHand } from '../../src/catalog/stock-on-hand.js';
import { ServiceClient } from '../../src/client/service-client.js';
import { redisKeys, type RedisKeys } from '../../src/redis/connection.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { connect, deletePrefix, uniquePrefix } from '../helpers/redis.js';

describe('catalog against the sandbox', () => {
  let sandbox: Sandbox;
  let client: ServiceClient;
  let redis: Redis;
  let keys: RedisKeys;

  beforeAll(async () => {
    sandbox = await startSandbox({ data: 'demo' });
    client = new ServiceClient({ baseUrl: sandbox.url, account: sandbox.account, apiKey: sandbox.key, apiSecret: sandbox.secret });
    redis = connect();
    keys = redisKeys(uniquePrefix('catalog-sb'));
  });
  afterAll(async () => {
    await client.close();
    await sandbox.close();
    await deletePrefix(redis, keys.prefix);
    await redis.quit();
  });

  it('resolves every product of the demo data to the productUrl the service has, internal ids included', async () => {
    const catalog = new Catalog({ client, redis, keys, refreshSeconds: 300 });
    const products = sandbox.admin.state().products as Array<{ productId: string; productUrl: string }>;
    const resolved = await catalog.products(products.map((p) => p.productId));
    expect(resolved.size).toBe(products.length);
    for (const p of products) expect(resolved.get(p.productId)?.productUrl).toBe(p.productUrl);
    expect(products.some((p) => !p.productUrl.endsWith(`/${p.productId}`))).toBe(true);
  });

  it('finds the demo magazines and their locations by name and by "Parent / name"', async () => {
    const catalog = new Catalog({ client, redis, keys, refreshSeconds: 300 });
    expect(await catalog.facility('Main Warehouse')).toMatchObject({ ok: true, facility: { kind: 'magazine' } });
    expect(await catalog.facility('North Depot')).toMatchObject({ ok: true, facility: { kind: 'magazine' } });
    const a01 = await catalog.facility('Main Warehouse / A-01');
    expect(a01).toMatchObject({ ok: true, facility: { kind: 'location', facilityName: 'A-01' } });
    expect(await catalog.facility('N-04')).toMatchObject({ ok: true, facility: { kind: 'location', path: 'North Depot / N-04' } });
  });

  it('reads stock on hand as the service sums it, lots included', async () => {
    const stock = await readStockOnHand(client);
    const rows = sandbox.admin.state().inventory as Array<{ facilityUrl: string; productUrl: string }>;
    const pairs = new Set(rows.map((r) => `${r.facilityUrl} ${r.productUrl}`));
    expect(pairs.size).toBeLessThan(rows.length); // some pairs span several rows
    for (const key of pairs) {
      const [facilityUrl, productUrl] = key.split(' ') as [string, string];
      expect(stock.get(facilityUrl)?.get(productUrl)).toBe(sandbox.admin.stockOnHand(facilityUrl, productUrl));
    }
  });
});
