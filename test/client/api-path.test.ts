import { afterEach, describe, expect, it } from 'vitest';
import { pathProblem } from '../../src/client/api-path.js';
import type { ServiceError } from '../../src/client/answers/errors.js';
import { ServiceClient } from '../../src/client/service-client.js';
import { json, startServer, type TestServer } from './http-server.js';

describe('paths the client follows', () => {
  describe('when a path is checked', () => {
    it.each([
      ['/demo/api/order/WEB-1', undefined],
      ['/demo/api/order/WEB-1/complete?x=1', undefined],
      ['/demo/api/order/WEB-1/history/', undefined],
      ['/demo/api/order/WEB%2F1', undefined],
      ['/demo/api/order/..', 'has a dot-segment'],
      ['/demo/api/order/WEB-1/../../other/api/x', 'has a dot-segment'],
      ['/demo/api/./order/1', 'has a dot-segment'],
      ['/demo/api/order/%2e%2e/x', 'has a dot-segment'],
      ['/demo/api/order/%2E%2e/x', 'has a dot-segment'],
      ['/demo/api/order/%252e%252e/x', 'has a dot-segment'],
      ['/demo/api/order/..%2f..%2fadmin', 'has a dot-segment'],
      ['/demo/api/order/x%5c..%5cadmin', 'has a dot-segment'],
      ['/demo/api/order/%zz', 'has a malformed percent-encoding'],
      ['/demo/api/order//1', 'has an empty segment'],
      ['/demo/api/order\\..\\admin', 'has a control character, a backslash or a fragment'],
      ['/demo/api/order/1#frag', 'has a control character, a backslash or a fragment'],
      ['/demo/api/order/1\r\nHost: evil', 'has a control character, a backslash or a fragment'],
      ['/other/api/order/1', 'is not under /demo/api/'],
      ['/demo/apix/order/1', 'is not under /demo/api/'],
      ['/demo/api', 'is not under /demo/api/'],
      ['/_admin/reset', 'is not under /demo/api/'],
    ])('%j: %s', (path, problem) => {
      expect(pathProblem(path, 'demo')).toBe(problem);
    });
  });

  describe('over a real server', () => {
    let server: TestServer;
    let client: ServiceClient;
    afterEach(async () => {
      await client?.close();
      await server?.close();
    });

    describe('when the service answers with URLs', () => {
      const order = (actionUrlComplete: string) => ({
        orderId: 'WEB-1',
        orderUrl: '/demo/api/order/WEB-1',
        statusId: 'ORDER_CREATED',
        actionUrlComplete,
      });

      it.each([
        '/demo/api/order/WEB-1/../../../_admin/reset',
        '/demo/api/order/%2e%2e/%2e%2e/%2e%2e/_admin/reset',
        '/other/api/order/WEB-1/complete',
        'https://evil.example/_admin/reset',
      ])('refuses to follow %j with BAD_RESPONSE, sending nothing', async (url) => {
        server = await startServer((req, res) => json(res, 200, order(url)));
        client = new ServiceClient({ baseUrl: server.url, account: 'demo', apiKey: 'k', apiSecret: 's' });
        const answered = await client.getOrder('/demo/api/order/WEB-1');
        const err = (await client.completeOrder(answered.actionUrlComplete!).catch((e: unknown) => e)) as ServiceError;
        expect(err).toMatchObject({ code: 'BAD_RESPONSE', retryable: false, outcome: 'not-applied', method: 'POST' });
        expect(err.message).toMatch(/^POST ".*": not followed, the path (has a dot-segment|is not under \/demo\/api\/)$/);
        expect(server.seen.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /demo/api/order/WEB-1']);
      });

      it('follows a good one, and an absolute URL only on the configured service', async () => {
        server = await startServer((req, res) => json(res, 200, order('https://elsewhere.example/demo/api/order/WEB-1/complete')));
        client = new ServiceClient({ baseUrl: server.url, account: 'demo', apiKey: 'k', apiSecret: 's' });
        const answered = await client.getOrder('/demo/api/order/WEB-1');
        await client.completeOrder(answered.actionUrlComplete!);
        expect(server.seen.map((r) => `${r.method} ${r.url}`)).toEqual([
          'GET /demo/api/order/WEB-1',
          'POST /demo/api/order/WEB-1/complete',
        ]);
      });
    });

    describe('when an answer is larger than INVENTORY_MAX_RESPONSE_BYTES', () => {
      it('is BAD_RESPONSE naming the cap (applied, for a write), and a smaller one is read', async () => {
        const big = { orderId: 'WEB-1', orderUrl: '/demo/api/order/WEB-1', statusId: 'ORDER_CREATED', note: 'n'.repeat(10_000) };
        server = await startServer((req, res) => json(res, 200, req.url?.endsWith('small') ? { ...big, note: '' } : big));
        client = new ServiceClient({
          baseUrl: server.url,
          account: 'demo',
          apiKey: 'k',
          apiSecret: 's',
          maxResponseBytes: 4096,
          readRetries: 0,
        });
        const read = (await client.getOrder('/demo/api/order/WEB-1').catch((e: unknown) => e)) as ServiceError;
        expect(read).toMatchObject({ code: 'BAD_RESPONSE', outcome: 'not-applied' });
        expect(read.message).toContain('the answer is larger than 4096 bytes (INVENTORY_MAX_RESPONSE_BYTES)');
        const write = (await client.completeOrder('/demo/api/order/WEB-1/complete').catch((e: unknown) => e)) as ServiceError;
        expect(write).toMatchObject({ code: 'BAD_RESPONSE', outcome: 'applied' });
        expect((await client.getOrder('/demo/api/order/small')).orderId).toBe('WEB-1');
      });
    });
  });
});
