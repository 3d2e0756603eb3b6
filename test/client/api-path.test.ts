import { afterEach, describe, expect, it } from 'vitest';
import { followablePath, pathProblem } from '../../src/client/api-path.js';
import type { ServiceError } from '../../src/client/answers/errors.js';
import { ServiceClient } from '../../src/client/service-client.js';
import { ODD_KEYS } from '../helpers/odd-keys.js';
import { json, startServer, type TestServer } from './http-server.js';

const LEAVES = (reading: string) => `leaves /demo/api/ once its dot-segments are resolved (a server may read it as "${reading}")`;
const CHARACTERS = 'has a control character, a backslash or a fragment';

describe('paths the client follows', () => {
  describe('when a key is in the path as the service encodes it', () => {
    it.each(ODD_KEYS)('follows the order and its actions for %j', (key) => {
      const order = `/demo/api/order/${encodeURIComponent(key)}`;
      for (const path of [order, `${order}/complete`, `${order}/history/`, `${order}/orderItem/00001/reserve`])
        expect(pathProblem(path, 'demo'), path).toBeUndefined();
    });
  });

  describe('when a path is checked', () => {
    it.each([
      // Followed: whatever a server makes of it, it stays in the account's API.
      ['/demo/api/order/WEB-1', 'followed'],
      ['/demo/api/order/WEB-1/complete?x=1', 'followed'],
      ['/demo/api/order/WEB-1/history/', 'followed'],
      ['/demo/api/order/WEB%2F1', 'followed'],
      ['/demo/api/order/50%25OFF-5/complete', 'followed'],
      ['/demo/api/order/%252e%252e', 'followed'],
      ['/demo/api/order/A%2F..%2FB/complete', 'followed'],
      ['/demo/api/order/..%2Fx/complete', 'followed'],
      ['/demo/api/order/%2e%2e/x', 'followed'],
      ['/demo/api/order/..', 'followed'],
      ['/demo/api/order/WEB-1/../../other/api/x', 'followed'],
      ['/demo/api/./order/1', 'followed'],
      ['/demo/api/order/x%5c..%5cadmin', 'followed'],
      ['/demo/api/order//1', 'followed'],
      // A malformed escape is the server's to answer (400): it leads nowhere else.
      ['/demo/api/order/%zz', 'followed'],
      ['/demo/api/order/50%OFF', 'followed'],
      // Refused: some reading of it climbs out of /demo/api/.
      ['/demo/api/..', LEAVES('/demo')],
      ['/demo/api/order/WEB-1/../../../other/api/x', LEAVES('/demo/other/api/x')],
      ['/demo/api/order/%2e%2e/%2e%2e/%2e%2e/_admin/reset', LEAVES('/_admin/reset')],
      ['/demo/api/order/%2E%2e/%2e%2E/x', LEAVES('/demo/x')],
      ['/demo/api/order/..%2f..%2f..%2fadmin', LEAVES('/admin')],
      ['/demo/api/order/%252e%252e%252f%252e%252e/x', LEAVES('/demo/x')],
      ['/demo/api/order/x%5c..%5c..%5c..%5cadmin', LEAVES('/demo/admin')],
      ['/demo/api/order/%c0%ae%c0%ae/%C0%AE%C0%AE/x', LEAVES('/demo/x')],
      ['/demo/api/order//../../x', LEAVES('/demo/x')],
      ['/demo/api/x%2Fy/%2e%2e/%2e%2e', LEAVES('/demo')],
      ['/demo/api/order\\..\\admin', CHARACTERS],
      ['/demo/api/order/1#frag', CHARACTERS],
      ['/demo/api/order/1\r\nHost: evil', CHARACTERS],
      ['/other/api/order/1', 'is not under /demo/api/'],
      ['/demo/apix/order/1', 'is not under /demo/api/'],
      ['/demo/api', 'is not under /demo/api/'],
      ['/_admin/reset', 'is not under /demo/api/'],
    ])('%j is %s', (path, verdict) => {
      expect(pathProblem(path, 'demo') ?? 'followed').toBe(verdict);
    });
  });

  describe('when a path is refused', () => {
    it('is NOT_FOLLOWED, saying this program refused it and the service was not asked', () => {
      let err: ServiceError | undefined;
      try {
        followablePath('POST', '/demo/api/order/..%2F..%2F..%2Fx/complete', 'demo');
      } catch (e) {
        err = e as ServiceError;
      }
      expect(err).toMatchObject({ code: 'NOT_FOLLOWED', retryable: false, outcome: 'not-applied', method: 'POST' });
      expect(err?.message).toBe(
        'POST "/demo/api/order/..%2F..%2F..%2Fx/complete": not sent, this program refuses to follow it (the service was not asked): ' +
          `the path ${LEAVES('/x/complete')}`,
      );
      expect(err?.hint).toMatch(/^This program refused to send the request, the service was not asked/);
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
      ])('refuses to follow %j with NOT_FOLLOWED, sending nothing', async (url) => {
        server = await startServer((req, res) => json(res, 200, order(url)));
        client = new ServiceClient({ baseUrl: server.url, account: 'demo', apiKey: 'k', apiSecret: 's' });
        const answered = await client.getOrder('/demo/api/order/WEB-1');
        const err = (await client.completeOrder(answered.actionUrlComplete!).catch((e: unknown) => e)) as ServiceError;
        expect(err).toMatchObject({ code: 'NOT_FOLLOWED', retryable: false, outcome: 'not-applied', method: 'POST' });
        expect(err.message).toMatch(
          /^POST ".*": not sent, this program refuses to follow it \(the service was not asked\): the path (leaves|is not under) \/demo\/api\//,
        );
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
