import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { Api, basic, orderBody, useSandbox } from './helpers.js';

/** docs/service.md "Requests". */
const t = useSandbox();

describe('authentication (spec section 5)', () => {
  it('answers 200 with Basic base64(key:secret), demo / demo by default', async () => {
    expect(t.sb.key).toBe('demo');
    expect((await t.api.get('facility', { auth: basic('demo', 'demo') })).status).toBe(200);
    expect((await t.api.get('facility', { auth: `basic ${Buffer.from('demo:demo').toString('base64')}` })).status).toBe(200);
  });

  describe('answers 401 with {msg}', () => {
    for (const [name, auth] of [
      ['a missing header', null],
      ['an empty header', ''],
      ['a wrong secret', basic('demo', 'nope')],
      ['a wrong key', basic('other', 'demo')],
      ['another scheme', 'Bearer demo'],
      ['garbage', 'Basic !!!'],
    ] as const) {
      it(`for ${name}`, async () => {
        const r = await t.api.get('product', { auth });
        expect(r.status).toBe(401);
        expect(r.body.msg).toEqual(expect.any(String));
        expect(r.headers['www-authenticate']).toMatch(/^Basic/);
      });
    }

    it('on action URLs too, without doing the action', async () => {
      const o = await t.api.ok('order', orderBody('A-1'));
      expect((await t.api.post(o.actionUrlComplete, {}, { auth: '' })).status).toBe(401);
      expect((await t.api.get(o.orderUrl)).body.statusId).toBe('ORDER_CREATED');
    });

    it('on writes, without writing', async () => {
      expect((await t.api.post('order', orderBody('A-2'), { auth: basic('demo', 'x') })).status).toBe(401);
      expect((await t.api.get('order/A-2')).status).toBe(404);
    });
  });

  it('answers 404 for an account path segment it does not serve', async () => {
    const r = await t.api.get('/acme/api/product');
    expect(r.status).toBe(404);
    expect(r.body.msg).toMatch(/Unknown account acme/);
  });

  it('answers 404 for a path outside /{account}/api/', async () => {
    expect((await t.api.get('/demo/v2/product')).status).toBe(404);
    expect((await t.api.get('/')).status).toBe(404);
  });
});

describe('configured credentials and account', () => {
  let sb: Sandbox;
  let api: Api;
  beforeAll(async () => {
    sb = await startSandbox({ account: 'acme', key: 'k-123', secret: 's-456', data: 'demo' });
    api = new Api(sb);
  });
  afterAll(() => sb.close());

  it('serves the account it was given, with its URLs, for its credentials only', async () => {
    expect((await api.get('/acme/api/facility')).status).toBe(200);
    expect((await api.get('/acme/api/facility', { auth: basic('demo', 'demo') })).status).toBe(401);
    expect((await api.get('/demo/api/facility')).status).toBe(404);
    const p = (await api.get('/acme/api/product/10003')).body;
    expect(p.productUrl).toBe('/acme/api/product/10003');
  });
});
