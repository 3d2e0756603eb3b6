import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Catalog } from '../../src/catalog/catalog.js';
import { CatalogBudget } from '../../src/catalog/catalog-budget.js';
import { ServiceClient } from '../../src/client/service-client.js';
import { redisKeys, type RedisKeys } from '../../src/redis/connection.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { connect, deletePrefix, uniquePrefix } from '../helpers/redis.js';

/** One account: its own sandbox (demo data) and key prefix. */
interface Account {
  sandbox: Sandbox;
  client: ServiceClient;
  keys: RedisKeys;
  products: Array<{ productId: string; productUrl: string }>;
}

const collectionGets = (a: Account) => a.sandbox.admin.counters().byClass.collection;

async function until(ok: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('catalogs under one bound on memory (CATALOG_CACHE_MB, CATALOG_IDLE_SECONDS)', () => {
  let redis: Redis;
  const accounts: Account[] = [];
  /** The estimated bytes of one demo catalog. */
  let oneCatalog = 0;
  const probeKeys = redisKeys(uniquePrefix('catalog-budget-probe'));

  beforeAll(async () => {
    redis = connect();
    for (const name of ['a', 'b']) {
      const sandbox = await startSandbox({ data: 'demo' });
      const client = new ServiceClient({ baseUrl: sandbox.url, account: sandbox.account, apiKey: sandbox.key, apiSecret: sandbox.secret });
      const products = sandbox.admin.state().products as Account['products'];
      accounts.push({ sandbox, client, keys: redisKeys(uniquePrefix(`catalog-budget-${name}`)), products });
    }
    const probe = new CatalogBudget({ maxBytes: Number.MAX_SAFE_INTEGER, idleMs: 0 });
    const a = accounts[0]!;
    await new Catalog({ client: a.client, redis, keys: probeKeys, refreshSeconds: 300, budget: probe }).product('x');
    oneCatalog = probe.usedBytes;
    probe.close();
  });
  afterAll(async () => {
    for (const a of accounts) {
      await a.client.close();
      await a.sandbox.close();
      await deletePrefix(redis, a.keys.prefix);
    }
    await deletePrefix(redis, probeKeys.prefix);
    await redis.quit();
  });

  const catalogOf = (a: Account, budget: CatalogBudget) =>
    new Catalog({ client: a.client, redis, keys: a.keys, refreshSeconds: 300, budget });

  it('drops the least recently used catalog past the bound, and loads it again on its next use', async () => {
    expect(oneCatalog).toBeGreaterThan(10_000);
    const budget = new CatalogBudget({ maxBytes: Math.round(oneCatalog * 1.5), idleMs: 0 });
    const [a, b] = accounts as [Account, Account];
    const [ca, cb] = [catalogOf(a, budget), catalogOf(b, budget)];
    const gets = [collectionGets(a), collectionGets(b)];
    const pa = a.products[3]!;
    const pb = b.products[7]!;

    expect((await ca.product(pa.productId))?.productUrl).toBe(pa.productUrl);
    expect([collectionGets(a) - gets[0]!, budget.held]).toEqual([2, 1]);
    // A miss refreshes once, and holds the miss-refresh lock for refreshSeconds (across processes, and drops).
    expect(await ca.product('NO-SUCH-PRODUCT')).toBeUndefined();
    expect(collectionGets(a) - gets[0]!).toBe(4);
    expect((await cb.product(pb.productId))?.productUrl).toBe(pb.productUrl);
    // b's load passed the bound: a, the least recently used, left memory.
    expect([collectionGets(b) - gets[1]!, budget.held]).toEqual([2, 1]);
    expect(budget.usedBytes).toBeLessThanOrEqual(oneCatalog * 1.5);

    // a again: read from its copy in Redis (no collection GET), b dropped in turn; the answers stay right, and a
    // miss within refreshSeconds of the last miss refresh does not refresh, as without the drop.
    expect((await ca.product(pa.productId))?.productUrl).toBe(pa.productUrl);
    expect(await ca.product('NO-SUCH-PRODUCT')).toBeUndefined();
    expect([collectionGets(a) - gets[0]!, budget.held]).toEqual([4, 1]);

    // b's copy in Redis gone while b is out of memory: its next use loads it from the service, as a first load does.
    await redis.del(b.keys.catalog());
    expect((await cb.products([pb.productId, b.products[0]!.productId])).size).toBe(2);
    expect(collectionGets(b) - gets[1]!).toBe(4);
    budget.close();
    expect([budget.held, budget.usedBytes]).toEqual([0, 0]);
  });

  it('keeps the one catalog in use even when it alone passes the bound', async () => {
    const budget = new CatalogBudget({ maxBytes: 1, idleMs: 0 });
    const [a] = accounts as [Account];
    const ca = catalogOf(a, budget);
    const gets = collectionGets(a);
    for (const p of a.products.slice(0, 5)) expect((await ca.product(p.productId))?.productUrl).toBe(p.productUrl);
    expect([budget.held, collectionGets(a) - gets]).toEqual([1, 0]);
    budget.close();
  });

  it('drops a catalog not used for its idle time, and answers again after', async () => {
    const budget = new CatalogBudget({ maxBytes: Number.MAX_SAFE_INTEGER, idleMs: 300 });
    const [a] = accounts as [Account];
    const ca = catalogOf(a, budget);
    const p = a.products[1]!;
    expect((await ca.product(p.productId))?.productUrl).toBe(p.productUrl);
    expect(budget.held).toBe(1);
    const usedAt = Date.now();
    await until(() => budget.held === 0);
    expect(Date.now() - usedAt).toBeGreaterThanOrEqual(290);
    expect(budget.usedBytes).toBe(0);
    expect((await ca.product(p.productId))?.productUrl).toBe(p.productUrl);
    expect(budget.held).toBe(1);
    budget.close();
  });

  it('holds many catalogs of one process under the bound, the most recent ones', async () => {
    const budget = new CatalogBudget({ maxBytes: oneCatalog * 5, idleMs: 0 });
    const [a] = accounts as [Account];
    const many = Array.from({ length: 20 }, (_, i) => new Catalog({ ...catalogOptions(a, i), budget }));
    const p = a.products[2]!;
    for (const c of many) {
      expect((await c.product(p.productId))?.productUrl).toBe(p.productUrl);
      expect(budget.usedBytes).toBeLessThanOrEqual(oneCatalog * 5);
    }
    expect(budget.held).toBe(5);
    budget.close();
    for (let i = 0; i < 20; i++) await deletePrefix(redis, catalogOptions(a, i).keys.prefix);
  });

  const catalogOptions = (a: Account, i: number) => ({
    client: a.client,
    redis,
    keys: redisKeys(`${a.keys.prefix}-many-${i}`),
    refreshSeconds: 300,
  });
});
