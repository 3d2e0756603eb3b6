import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Catalog } from '../../src/catalog/catalog.js';
import { ServiceClient } from '../../src/client/service-client.js';
import { redisKeys, type RedisKeys } from '../../src/redis/connection.js';
import { columns, json, startServer, type TestServer } from '../client/http-server.js';
import { connect, deletePrefix, uniquePrefix } from '../helpers/redis.js';

const P = '/acme/api/product';
const F = '/acme/api/facility';

/** A service whose collections answer column-major, with rows the test can change. */
function fakeService() {
  const data = {
    products: [
      { productId: 'MUG-BLUE', productUrl: `${P}/10000`, statusId: 'PRODUCT_ACTIVE' },
      { productId: 'MUG-RED', productUrl: `${P}/10007`, statusId: 'PRODUCT_ACTIVE' },
      { productId: 'SKU-0003', productUrl: `${P}/SKU-0003` },
    ] as Array<Record<string, unknown>>,
    facilities: [
      { facilityId: 'A01', facilityUrl: `${F}/11`, facilityName: 'A-01', parentFacilityUrl: `${F}/1` },
      { facilityId: 'N01', facilityUrl: `${F}/21`, facilityName: 'A-01', parentFacilityUrl: `${F}/2` },
      { facilityId: 'A02', facilityUrl: `${F}/12`, facilityName: 'A-02', parentFacilityUrl: `${F}/1` },
      { facilityId: 'MAIN', facilityUrl: `${F}/1`, facilityName: 'Main Warehouse' },
      { facilityId: 'NORTH', facilityUrl: `${F}/2`, facilityName: 'North Depot' },
    ] as Array<Record<string, unknown>>,
  };
  const hits = { product: 0, facility: 0 };
  const self = {
    data,
    hits,
    /** How long a collection takes to answer. */
    latencyMs: 0,
    start: () =>
      startServer((req, res) => {
        const answer = () => {
          if (req.url === P) {
            hits.product++;
            return json(res, 200, columns(data.products));
          }
          if (req.url === F) {
            hits.facility++;
            return json(res, 200, columns(data.facilities));
          }
          json(res, 404, { msg: 'not found' });
        };
        if (self.latencyMs > 0) setTimeout(answer, self.latencyMs);
        else answer();
      }),
  };
  return self;
}

describe('catalog', () => {
  let server: TestServer;
  let service: ReturnType<typeof fakeService>;
  let redis: Redis;
  let keys: RedisKeys;
  let client: ServiceClient;
  const extra: Redis[] = [];

  const catalog = (refreshSeconds = 300, r: Redis = redis) => new Catalog({ client, redis: r, keys, refreshSeconds });

  beforeEach(async () => {
    service = fakeService();
    server = await service.start();
    redis = connect();
    keys = redisKeys(uniquePrefix('catalog'));
    client = new ServiceClient({ baseUrl: server.url, account: 'acme', apiKey: 'k', apiSecret: 's', readRetries: 0 });
  });
  afterEach(async () => {
    await client.close();
    await server.close();
    await deletePrefix(redis, keys.prefix);
    await Promise.all([redis, ...extra.splice(0)].map((r) => r.quit().catch(() => undefined)));
  });

  describe('resolving products', () => {
    it('answers the productUrl from the collection, even when it differs from the productId', async () => {
      const c = catalog();
      expect(await c.product('MUG-BLUE')).toEqual({ productId: 'MUG-BLUE', productUrl: `${P}/10000`, statusId: 'PRODUCT_ACTIVE' });
      const many = await c.products(['MUG-RED', 'SKU-0003', 'NOPE']);
      expect([...many.entries()].map(([id, p]) => [id, p.productUrl])).toEqual([
        ['MUG-RED', `${P}/10007`],
        ['SKU-0003', `${P}/SKU-0003`],
      ]);
      expect(await c.productIdByUrl(`${P}/10007`)).toBe('MUG-RED');
    });
  });

  describe('resolving facilities', () => {
    it('tells magazines (no parent) from locations (a parent)', async () => {
      const c = catalog();
      expect(await c.facility('Main Warehouse')).toMatchObject({
        ok: true,
        facility: { kind: 'magazine', path: 'Main Warehouse', facilityUrl: `${F}/1` },
      });
      expect(await c.facility('Main Warehouse / A-02')).toMatchObject({
        ok: true,
        facility: { kind: 'location', path: 'Main Warehouse / A-02', parentFacilityUrl: `${F}/1` },
      });
    });

    it('finds a facility by URL, by exact name, or by "Parent / name"', async () => {
      const c = catalog();
      expect(await c.facility(`${F}/21`)).toMatchObject({ ok: true, facility: { path: 'North Depot / A-01' } });
      expect(await c.facility('A-02')).toMatchObject({ ok: true, facility: { facilityUrl: `${F}/12` } });
      expect(await c.facility('North Depot/A-01')).toMatchObject({ ok: true, facility: { facilityUrl: `${F}/21` } });
    });

    it('calls a name that several facilities share ambiguous, naming the candidates', async () => {
      const found = await catalog().facility('A-01');
      expect(found).toEqual({
        ok: false,
        reason: 'ambiguous',
        candidates: [`Main Warehouse / A-01 (${F}/11)`, `North Depot / A-01 (${F}/21)`],
      });
      // An ambiguous name is no reason to refetch the catalog.
      expect(service.hits.product).toBe(1);
    });
  });

  describe('when a name is missing', () => {
    it('refreshes once, then not again within refreshSeconds, across processes', async () => {
      const a = catalog(300);
      expect(await a.product('MUG-BLUE')).toBeDefined();
      expect(service.hits).toEqual({ product: 1, facility: 1 });

      service.data.products.push({ productId: 'NEW-1', productUrl: `${P}/20001` });
      service.data.facilities.push({ facilityUrl: `${F}/3`, facilityName: 'South Depot' });
      expect(await a.product('NEW-1')).toMatchObject({ productUrl: `${P}/20001` });
      expect(service.hits).toEqual({ product: 2, facility: 2 });

      // Another process (own connection) loads the refreshed copy from Redis, not from the service...
      const other = connect();
      extra.push(other);
      const b = catalog(300, other);
      expect(await b.facility('South Depot')).toMatchObject({ ok: true, facility: { kind: 'magazine' } });
      // ...and neither refreshes again on further misses within refreshSeconds.
      service.data.products.push({ productId: 'NEW-2', productUrl: `${P}/20002` });
      expect(await a.product('NEW-2')).toBeUndefined();
      expect(await b.product('NEW-2')).toBeUndefined();
      expect(await b.facility('Nowhere')).toEqual({ ok: false, reason: 'unknown' });
      expect(service.hits).toEqual({ product: 2, facility: 2 });
    });

    it('loads once for every process that starts at the same time', async () => {
      service.latencyMs = 300;
      const others = [connect(), connect()];
      extra.push(...others);
      const found = await Promise.all([catalog(300), ...others.map((r) => catalog(300, r))].map((c) => c.product('MUG-RED')));
      expect(found.map((p) => p?.productUrl)).toEqual([`${P}/10007`, `${P}/10007`, `${P}/10007`]);
      expect(service.hits).toEqual({ product: 1, facility: 1 });
    });

    it('does not fetch again for a miss on the copy it has just fetched', async () => {
      expect(await catalog(300).product('NOPE')).toBeUndefined();
      expect(service.hits).toEqual({ product: 1, facility: 1 });
    });

    it('makes concurrent misses share one refresh', async () => {
      const c = catalog(0);
      await c.product('MUG-BLUE');
      const misses = await Promise.all([c.product('X1'), c.product('X2'), c.facility('Y'), c.productIdByUrl(`${P}/none`)]);
      expect(misses).toEqual([undefined, undefined, { ok: false, reason: 'unknown' }, undefined]);
      expect(service.hits.product).toBe(2);
    });

    it('refreshes on request, whatever refreshSeconds says', async () => {
      const c = catalog(300);
      await c.product('MUG-BLUE');
      service.data.products.push({ productId: 'NEW-3', productUrl: `${P}/20003` });
      await c.refresh();
      expect(service.hits.product).toBe(2);
      expect(await c.product('NEW-3')).toBeDefined();
    });
  });

  describe('on the hot path', () => {
    it('answers from memory without Redis once loaded', async () => {
      const own = connect();
      const c = catalog(300, own);
      await c.product('MUG-BLUE');
      await own.quit(); // any Redis command from here on would fail
      for (let i = 0; i < 1000; i++) expect((await c.product('MUG-RED'))?.productUrl).toBe(`${P}/10007`);
      expect(await c.facility('Main Warehouse / A-01')).toMatchObject({ ok: true });
    });
  });
});
