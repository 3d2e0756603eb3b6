import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../../src/client/service-client.js';
import { UpstreamClient } from '../../../src/feed/upstream-client.js';
import { checkFeed } from '../../../src/ops/check/check-feed.js';
import { checkService } from '../../../src/ops/check/check-service.js';
import { redisKeys } from '../../../src/redis/connection.js';
import { columns, json, startServer, type TestServer } from '../../client/http-server.js';
import { connect, deletePrefix, uniquePrefix } from '../../helpers/redis.js';
import { orderKind } from '../../../jobs/orders/order-kind.js';

const budgets = { postPerMinute: 120, getPerMinute: 120, collectionPerHour: 300, headroom: 0.98 };

describe('check, part by part, over a real server', () => {
  let server: TestServer | undefined;
  let client: ServiceClient | undefined;
  afterEach(async () => {
    await client?.close();
    await server?.close();
    client = undefined;
    server = undefined;
  });

  async function serviceAnswering(status: number, body: unknown, headers: Record<string, string> = {}) {
    server = await startServer((_req, res) => json(res, status, body, headers));
    client = new ServiceClient({ baseUrl: server.url, account: 'acme', apiKey: 'k', apiSecret: 'secret-x', readRetries: 0 });
    return checkService({ client, baseUrl: server.url, budgets });
  }

  describe('when the service refuses the facility collection', () => {
    it.each([
      [401, 'refusing', 'SERVICE_UNAUTHORIZED', 'INVENTORY_API_SECRET'],
      [403, 'refusing', 'SERVICE_FORBIDDEN', 'INVENTORY_ACCOUNT'],
      [404, 'refusing', 'SERVICE_NO_ACCOUNT', 'INVENTORY_ACCOUNT'],
      [503, 'unreachable', 'SERVICE_UNREACHABLE', 'INVENTORY_BASE_URL'],
    ])('HTTP %i is %s, %s, with what to do', async (status, state, code, names) => {
      const report = await serviceAnswering(status, { msg: 'no' });
      expect(report).toMatchObject({ state, problem: { code }, facilities: null, products: null });
      expect(report.problem!.hint).toContain(names);
      // Nothing else is asked once the first read is refused.
      expect(server!.seen.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /acme/api/facility']);
    });
  });

  describe('when the service answers', () => {
    it('reads the tree, the product figures and whatever rate-limit fields it sends', async () => {
      server = await startServer((req, res) => {
        const headers = { 'RateLimit-Limit': '120', 'X-RateLimit-Remaining': '7' };
        if (req.url === '/acme/api/facility') {
          return json(
            res,
            200,
            columns([
              { facilityUrl: '/acme/api/facility/1', facilityName: 'Hub' },
              { facilityUrl: '/acme/api/facility/2', facilityName: 'B-1', parentFacilityUrl: '/acme/api/facility/1' },
              { facilityUrl: '/acme/api/facility/3', facilityName: 'Lost', parentFacilityUrl: '/acme/api/facility/9' },
            ]),
            headers,
          );
        }
        json(
          res,
          200,
          columns([
            { productId: 'A', productUrl: '/acme/api/product/A', statusId: 'PRODUCT_ACTIVE' },
            { productId: 'B b', productUrl: '/acme/api/product/B%20b' },
            { productId: 'C', productUrl: '/acme/api/product/10003', statusId: 'PRODUCT_INACTIVE' },
          ]),
        );
      });
      client = new ServiceClient({ baseUrl: server.url, account: 'acme', apiKey: 'k', apiSecret: 's', readRetries: 0 });
      const report = await checkService({ client, baseUrl: server.url, budgets });
      expect(report.state).toBe('ok');
      expect(report.facilities).toEqual({
        magazines: 1,
        locations: 2,
        tree: [{ name: 'Hub', url: '/acme/api/facility/1', locations: [{ name: 'B-1', url: '/acme/api/facility/2' }] }],
        orphans: [{ name: 'Lost', url: '/acme/api/facility/3', parentUrl: '/acme/api/facility/9' }],
      });
      expect(report.products).toEqual({
        count: 3,
        active: 2,
        inactive: 1,
        urlDiffers: 1,
        urlExamples: [{ productId: 'C', productUrl: '/acme/api/product/10003' }],
      });
      // The product answer sent none; the facility answer's fields are kept.
      expect(report.rateLimit.sent).toEqual({ 'ratelimit-limit': '120', 'x-ratelimit-remaining': '7' });
    });
  });

  describe('when the feed refuses the token', () => {
    let redis: Redis;
    let prefix: string;
    beforeAll(() => {
      redis = connect();
      prefix = uniquePrefix('check-feed');
    });
    afterAll(async () => {
      await deletePrefix(redis, prefix);
      redis.disconnect();
    });

    it.each([
      [401, 'FEED_UNAUTHORIZED', 'check UPSTREAM_TOKEN'],
      [403, 'FEED_FORBIDDEN', "ask the feed's owner for read access"],
    ])('tells HTTP %i apart as %s', async (status, code, hint) => {
      server = await startServer((_req, res) => json(res, status, { error: 'no' }));
      const upstream = new UpstreamClient({ url: server.url, token: 'tok-x', retries: 0 });
      const part = await checkFeed({ upstream, redis, keys: redisKeys(prefix), kinds: [orderKind], pageSize: 10 });
      expect(part.records).toEqual([]);
      expect(part.streams).toEqual([
        {
          stream: 'orders',
          cursor: null,
          state: 'refusing',
          problem: { code, status, message: expect.any(String), hint: expect.stringContaining(hint) },
          records: 0,
          hasMore: null,
          valid: 0,
          bad: [],
        },
      ]);
      expect(JSON.stringify(part)).not.toContain('tok-x');
    });
  });
});
