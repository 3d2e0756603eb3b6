import type { ServerResponse } from 'node:http';
import type { Redis } from 'ioredis';
import { Agent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RequestBudget } from '../../src/client/budget/budget.js';
import type { ServiceError } from '../../src/client/answers/errors.js';
import type { CreateOrderBody } from '../../src/client/answers/schemas.js';
import type { ApiCall } from '../../src/client/service-api.js';
import { ServiceClient, type ServiceClientOptions } from '../../src/client/service-client.js';
import { redisKeys } from '../../src/redis/connection.js';
import { connect, deletePrefix, uniquePrefix } from '../helpers/redis.js';
import { columns, json, startServer, type TestServer } from './http-server.js';

const ORDER = { orderId: 'WEB-1', orderUrl: '/demo/api/order/WEB-1', statusId: 'ORDER_CREATED', orderItemList: [] };
const ORDER_BODY: CreateOrderBody = {
  orderId: 'WEB-1',
  orderTypeId: 'SALES_ORDER',
  originFacilityUrl: '/demo/api/facility/1',
  orderItemList: [],
};

describe('service client', () => {
  let server: TestServer;
  let redis: Redis;
  let prefix: string;
  const clients: ServiceClient[] = [];

  function client(opts: Partial<ServiceClientOptions> = {}): ServiceClient {
    const c = new ServiceClient({ baseUrl: server.url, account: 'demo', apiKey: 'k', apiSecret: 's', retryMinDelayMs: 10, ...opts });
    clients.push(c);
    return c;
  }
  const budget = (postPerMinute = 6000, headroom = 0.98) =>
    new RequestBudget({
      redis,
      keys: redisKeys(prefix),
      budgets: { postPerMinute, getPerMinute: 6000, collectionPerHour: 36_000, headroom },
    });
  async function serve(handler: (res: ServerResponse, n: number, url: string) => void) {
    let n = 0;
    server = await startServer((req, res) => handler(res, n++, req.url ?? ''));
  }

  beforeEach(() => {
    redis = connect();
    prefix = uniquePrefix('client');
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await server?.close();
    await deletePrefix(redis, prefix);
    await redis.quit();
  });

  describe('when the server counts requests per fixed window', () => {
    // 10 POSTs per 3-second window (200 a minute), like a service with fixed windows; over it: 429 until the
    // window ends. Windows shorter than the budget's minute keep the test short.
    function windowedServer() {
      const counts = new Map<number, number>();
      let rateLimited = 0;
      return {
        get rateLimited() {
          return rateLimited;
        },
        handle(res: ServerResponse) {
          const w = Math.floor(Date.now() / 3000);
          const n = (counts.get(w) ?? 0) + 1;
          counts.set(w, n);
          if (n > 10) {
            rateLimited++;
            return json(res, 429, '', { 'x-ratelimit-limit': '10', 'x-ratelimit-reset': String((w + 1) * 3000) });
          }
          json(res, 200, ORDER);
        },
      };
    }

    it('waits for budget instead of earning a 429', async () => {
      const windows = windowedServer();
      await serve((res) => windows.handle(res));
      // Headroom 0.75: in a 3-second window that leaves 750 ms for a loaded test machine's late timers, as 0.98
      // leaves 1.2 s in the service's minute.
      const calls: ApiCall[] = [];
      const c = client({ budget: budget(200, 0.75), onCall: (call) => calls.push(call) });
      const results = await Promise.allSettled(Array.from({ length: 14 }, () => c.createOrder(ORDER_BODY)));
      expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
      expect(windows.rateLimited).toBe(0);
      expect(Math.max(...calls.map((call) => call.waitedMs))).toBeGreaterThan(4000);
    });

    it('earns 429s without a budget (the same server, for contrast)', async () => {
      const windows = windowedServer();
      await serve((res) => windows.handle(res));
      const c = client();
      const results = await Promise.allSettled(Array.from({ length: 25 }, () => c.createOrder(ORDER_BODY)));
      expect(windows.rateLimited).toBeGreaterThan(0);
      expect(results.some((r) => r.status === 'rejected' && (r.reason as ServiceError).code === 'RATE_LIMITED')).toBe(true);
    });
  });

  describe('when a read is answered 429', () => {
    it('holds the class, waits for the reset and tries again', async () => {
      await serve((res, n) => (n === 0 ? json(res, 429, '', { 'x-ratelimit-reset': '1' }) : json(res, 200, ORDER)));
      const b = budget();
      const calls: ApiCall[] = [];
      const order = await client({ budget: b, readRetries: 2 }).getOrder('/demo/api/order/WEB-1', { onCall: (c) => calls.push(c) });
      expect(order.orderId).toBe('WEB-1');
      expect(server.seen).toHaveLength(2);
      expect(server.seen[1]!.at - server.seen[0]!.at).toBeGreaterThanOrEqual(990);
      expect(calls.map((c) => [c.status, c.error])).toEqual([
        [429, 'RATE_LIMITED'],
        [200, undefined],
      ]);
      expect((await b.stats()).holds.get).toBe(1);
    });
  });

  describe('when a write is answered 429', () => {
    it('fails with RATE_LIMITED at once and holds the class for every process', async () => {
      await serve((res) => json(res, 429, '', { 'x-ratelimit-reset': '5' }));
      const b = budget();
      const err = (await client({ budget: b })
        .createOrder(ORDER_BODY)
        .catch((e: unknown) => e)) as ServiceError;
      expect(err.code).toBe('RATE_LIMITED');
      expect(server.seen).toHaveLength(1);
      const held = (await budget().stats()).heldUntil.post;
      expect(held).toBeGreaterThan(Date.now() + 3000);
      expect(Math.abs(held! - err.resetAt!)).toBeLessThan(1000);
    });
  });

  describe('when the service fails for now', () => {
    it('retries a read within readRetries', async () => {
      await serve((res, n) => (n < 2 ? json(res, 503, 'busy') : json(res, 200, ORDER)));
      expect((await client({ readRetries: 2 }).getOrder('/demo/api/order/WEB-1')).orderId).toBe('WEB-1');
      expect(server.seen).toHaveLength(3);
    });

    it('gives up on a read after readRetries', async () => {
      await serve((res) => json(res, 503, 'busy'));
      const err = (await client({ readRetries: 2 })
        .getOrder('/demo/api/order/WEB-1')
        .catch((e: unknown) => e)) as ServiceError;
      expect(err.code).toBe('TRANSIENT');
      expect(server.seen).toHaveLength(3);
    });

    it('does not retry a read that cannot succeed', async () => {
      await serve((res) => json(res, 404, ''));
      await expect(client({ readRetries: 3 }).getOrder('/demo/api/order/X')).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect(server.seen).toHaveLength(1);
    });

    it('never retries a write', async () => {
      await serve((res) => json(res, 503, 'busy'));
      await expect(client({ readRetries: 3 }).createOrder(ORDER_BODY)).rejects.toMatchObject({ code: 'TRANSIENT', outcome: 'not-applied' });
      expect(server.seen).toHaveLength(1);
    });
  });

  describe('reading collections', () => {
    it('decodes column-major answers into typed rows', async () => {
      // The magazine comes last, so its parentFacilityUrl column is one short (ragged).
      const facilities = [
        { facilityId: 'A01', facilityUrl: '/demo/api/facility/2', facilityName: 'A-01', parentFacilityUrl: '/demo/api/facility/1' },
        { facilityId: 'MAIN', facilityUrl: '/demo/api/facility/1', facilityName: 'Main Warehouse' },
      ];
      await serve((res, _n, url) =>
        url === '/demo/api/facility' ? json(res, 200, columns(facilities)) : json(res, 200, { x: [1, 2, 3] }),
      );
      const c = client();
      expect(await c.listFacilities()).toEqual([facilities[0], facilities[1]]);
      expect(await c.listCollection('orderitem')).toEqual([{ x: 1 }, { x: 2 }, { x: 3 }]);
    });
  });

  describe('reporting calls', () => {
    it('calls the client-wide and the per-call onCall once per HTTP request', async () => {
      await serve((res, n) => (n === 0 ? json(res, 503, '') : json(res, 200, ORDER)));
      const wide: ApiCall[] = [];
      const mine: ApiCall[] = [];
      const c = client({ onCall: (call) => wide.push(call), readRetries: 1 });
      await c.getOrder('/demo/api/order/WEB-1', { onCall: (call) => mine.push(call) });
      await c.createOrder(ORDER_BODY);
      expect(mine.map((x) => [x.method, x.status, x.cls])).toEqual([
        ['GET', 503, 'get'],
        ['GET', 200, 'get'],
      ]);
      expect(wide).toHaveLength(3);
      expect(wide[2]).toMatchObject({ method: 'POST', path: '/demo/api/order', status: 200, cls: 'post', waitedMs: 0 });
      expect(server.seen[2]!.headers['content-type']).toBe('application/json');
      expect(JSON.parse(server.seen[2]!.body)).toEqual(ORDER_BODY);
    });
  });

  describe('with an injected dispatcher', () => {
    it('uses it and leaves it open on close', async () => {
      await serve((res) => json(res, 200, ORDER));
      const agent = new Agent({ connections: 2 });
      const c = new ServiceClient({ baseUrl: server.url, account: 'demo', apiKey: 'k', apiSecret: 's', dispatcher: agent });
      await c.getOrder('/demo/api/order/WEB-1');
      await c.close();
      expect(agent.closed).toBe(false);
      await agent.close();
    });
  });
});
